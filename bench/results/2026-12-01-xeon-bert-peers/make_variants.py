"""BERT-s128 with each layer's Q/K/V projections merged by hand, two ways: (split-then-add) one MatMul of the
concatenated weights, a Split, then each piece's own bias Add (PET's program 3 form); (add-then-split) one
MatMul, one Add of the concatenated biases, then the Split. Written beside the input for qkv_ab.py."""
import collections, sys
import numpy as np, onnx
from onnx import helper, numpy_helper

def variant(path, bias_first):
    m = onnx.load(path)
    g = m.graph
    inits = {t.name: t for t in g.initializer}
    cons = collections.defaultdict(list)
    for n in g.node:
        for i in n.input: cons[i].append(n)
    groups = collections.defaultdict(list)
    for n in g.node:
        if n.op_type == "MatMul" and n.input[1] in inits: groups[n.input[0]].append(n)
    new_nodes, drop, new_inits = {}, set(), []
    for k, (x, mms) in enumerate([(x, v) for x, v in groups.items() if len(v) == 3]):
        adds = [cons[mm.output[0]][0] for mm in mms]
        ws = [numpy_helper.to_array(inits[mm.input[1]]) for mm in mms]
        bs = [numpy_helper.to_array(inits[a.input[1] if a.input[1] in inits else a.input[0]]) for a in adds]
        W = np.concatenate(ws, axis=1); B = np.concatenate(bs)
        wn, bn, sn = f"qkv_w{k}", f"qkv_b{k}", f"qkv_split{k}"
        new_inits += [numpy_helper.from_array(W, wn), numpy_helper.from_array(B, bn),
                      numpy_helper.from_array(np.array([w.shape[1] for w in ws], np.int64), sn)]
        nodes = [helper.make_node("MatMul", [x, wn], [f"qkv_y{k}"])]
        if bias_first:
            nodes += [helper.make_node("Add", [f"qkv_y{k}", bn], [f"qkv_yb{k}"]),
                      helper.make_node("Split", [f"qkv_yb{k}", sn], [a.output[0] for a in adds], axis=-1)]
        else:
            pieces = [f"qkv_p{k}_{i}" for i in range(3)]
            nodes += [helper.make_node("Split", [f"qkv_y{k}", sn], pieces, axis=-1)]
            for i, a in enumerate(adds):
                bi = f"qkv_b{k}_{i}"
                new_inits.append(numpy_helper.from_array(bs[i], bi))
                nodes.append(helper.make_node("Add", [pieces[i], bi], [a.output[0]]))
        new_nodes[mms[0].name] = nodes
        drop |= {n.name for n in mms + adds}
    out = []
    for n in g.node:
        if n.name in new_nodes: out += new_nodes[n.name]
        if n.name not in drop: out.append(n)
    del g.node[:]; g.node.extend(out); g.initializer.extend(new_inits)
    onnx.checker.check_model(m)
    return m

src = sys.argv[1]
onnx.save(variant(src, False), "split_then_add.onnx")
onnx.save(variant(src, True), "add_then_split.onnx")
