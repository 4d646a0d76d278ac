"""ONNX opset 23 standard Attention against the exporter's unfused core (Transpose, MatMul, Mul by 1/sqrt(D),
Softmax, MatMul) in ONNX Runtime on 2 threads: 30 interleaved runs, the first 5 dropped, median [min-max].
    python3 attn_ab.py"""
import time, statistics, numpy as np, onnx, onnxruntime as ort
from onnx import helper, TensorProto
def model(kind,B,H,S,D):
    vi=lambda n,sh: helper.make_tensor_value_info(n,TensorProto.FLOAT,sh)
    ins=[vi("q",[B,H,S,D]),vi("k",[B,H,S,D]),vi("v",[B,H,S,D])]
    out=[vi("y",[B,H,S,D])]
    if kind=="attention23":
        nodes=[helper.make_node("Attention",["q","k","v"],["y"])]
        inits=[]
    else:
        inits=[helper.make_tensor("scale",TensorProto.FLOAT,[],[1/np.sqrt(D)])]
        nodes=[helper.make_node("Transpose",["k"],["kt"],perm=[0,1,3,2]),
               helper.make_node("MatMul",["q","kt"],["s"]),
               helper.make_node("Mul",["s","scale"],["s2"]),
               helper.make_node("Softmax",["s2"],["p"],axis=-1),
               helper.make_node("MatMul",["p","v"],["y"])]
    m=helper.make_model(helper.make_graph(nodes,"a",ins,out,initializer=inits),opset_imports=[helper.make_opsetid("",23)],ir_version=10)
    return m.SerializeToString()
o=ort.SessionOptions(); o.intra_op_num_threads=2
for (B,H,S,D) in [(1,12,128,64),(16,12,128,64),(1,12,512,64)]:
    sess={k:ort.InferenceSession(model(k,B,H,S,D),o,providers=["CPUExecutionProvider"]) for k in ["unfused","attention23"]}
    rng=np.random.default_rng(1); feed={n:rng.uniform(-1,1,(B,H,S,D)).astype(np.float32) for n in "qkv"}
    a=sess["unfused"].run(None,feed)[0]; b=sess["attention23"].run(None,feed)[0]
    times={k:[] for k in sess}
    for r in range(30):
        for k in (list(sess) if r%2 else list(sess)[::-1]):
            t=time.perf_counter(); sess[k].run(None,feed); times[k].append(time.perf_counter()-t)
    print((B,H,S,D), "max diff %.2e"%abs(a-b).max(), {k:"%.3f ms [%.3f-%.3f]"%(1e3*statistics.median(v[5:]),1e3*min(v[5:]),1e3*max(v[5:])) for k,v in times.items()})
