#!/usr/bin/env python3
"""TASO's projection merge (merge-parallel-matmuls-sharing-input) measured on its own in both CPU runtimes.

Three 768x768 projections of one [1, 128, 768] activation, each with its bias, against the merged form
(one 768x2304 MatMul, a Split, three Adds), in ONNX Runtime and OpenVINO at 1 thread: every variant
compiled once, warmed up, then timed in 200 rounds that run all four in a rotating order; medians and
half the interquartile range. It says whether the rule can pay on this CPU, which the measured search
then decides per model.

Usage: python3 bench/projection_merge.py
"""
import numpy as np, time, onnxruntime as ort, openvino as ov
from onnx import helper, TensorProto, numpy_helper
rng=np.random.default_rng(0); S,D=128,768
W=[rng.standard_normal((D,D)).astype(np.float32)*0.03 for _ in range(3)]
B=[rng.standard_normal((D,)).astype(np.float32) for _ in range(3)]
def model(merged):
    inits=[numpy_helper.from_array(B[i],f'b{i}') for i in range(3)]; nodes=[]
    if merged:
        inits += [numpy_helper.from_array(np.concatenate(W,1),'w'), numpy_helper.from_array(np.array([D,D,D],np.int64),'sp')]
        nodes += [helper.make_node('MatMul',['x','w'],['m']), helper.make_node('Split',['m','sp'],['s0','s1','s2'],axis=2)]
        nodes += [helper.make_node('Add',[f'b{i}',f's{i}'],[f'y{i}']) for i in range(3)]
    else:
        for i in range(3):
            inits.append(numpy_helper.from_array(W[i],f'w{i}'))
            nodes += [helper.make_node('MatMul',['x',f'w{i}'],[f'm{i}']), helper.make_node('Add',[f'b{i}',f'm{i}'],[f'y{i}'])]
    g=helper.make_graph(nodes,'qkv',[helper.make_tensor_value_info('x',TensorProto.FLOAT,[1,S,D])],
        [helper.make_tensor_value_info(f'y{i}',TensorProto.FLOAT,[1,S,D]) for i in range(3)],inits)
    m=helper.make_model(g,opset_imports=[helper.make_opsetid('',13)]); m.ir_version=8
    return m.SerializeToString()
x=rng.standard_normal((1,S,D)).astype(np.float32)
so=ort.SessionOptions(); so.intra_op_num_threads=1; so.inter_op_num_threads=1
core=ov.Core()
runs={}
for k,name in ((False,'separate'),(True,'merged')):
    s=ort.InferenceSession(model(k),so,providers=['CPUExecutionProvider'])
    runs[('ort',name)]=lambda s=s: s.run(None,{'x':x})
    r=core.compile_model(core.read_model(model(k),b''),'CPU',{'INFERENCE_NUM_THREADS':1,'PERFORMANCE_HINT':'LATENCY','NUM_STREAMS':1}).create_infer_request()
    runs[('ov',name)]=lambda r=r: r.infer({0:x})
keys=list(runs)
for f in runs.values():
    for _ in range(20): f()
t={k:[] for k in keys}
for rnd in range(200):
    order=keys[rnd%len(keys):]+keys[:rnd%len(keys)]
    for k in order:
        a=time.perf_counter(); runs[k](); t[k].append((time.perf_counter()-a)*1e6)
for rt in ('ort','ov'):
    out=[]
    for name in ('separate','merged'):
        v=np.array(t[(rt,name)]); q1,q3=np.percentile(v,[25,75]); out.append((np.median(v),(q3-q1)/2))
    print(f"{rt}: separate {out[0][0]:.0f} ± {out[0][1]:.0f} us, merged {out[1][0]:.0f} ± {out[1][1]:.0f} us, merged/separate speedup {out[0][0]/out[1][0]:.3f}x")
