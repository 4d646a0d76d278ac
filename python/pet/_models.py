"""Models as pet's API takes them: an onnx.ModelProto, a path (str or os.PathLike) or the bytes of
a serialized model; pet's C++ side reads files, so models in memory are written to a folder first."""

import os

from ._errors import UserError

# Above this a ModelProto cannot be serialized as one message; it is written with external data.
_PROTOBUF_LIMIT = 2**31 - 1


def _external_tensors(model):
    """The tensors of the main graph whose data the proto leaves in a file it does not hold."""
    import onnx

    tensors = list(model.graph.initializer)
    for node in model.graph.node:
        tensors += [attribute.t for attribute in node.attribute if attribute.type == onnx.AttributeProto.TENSOR]
    return [tensor for tensor in tensors if tensor.data_location == onnx.TensorProto.EXTERNAL]


def _write_proto(model, path):
    import onnx

    unloaded = _external_tensors(model)
    if unloaded:
        location = next((entry.value for entry in unloaded[0].external_data if entry.key == "location"), "?")
        raise UserError(
            f"the ModelProto's tensor '{unloaded[0].name}' keeps its data in an external file ('{location}') that "
            "pet cannot find from a model in memory; load the model with onnx.load(path) (load_external_data=True, "
            "the default) or pass the path of the .onnx file instead"
        )
    if model.ByteSize() <= _PROTOBUF_LIMIT:
        with open(path, "wb") as file:
            file.write(model.SerializeToString())
        return
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    onnx.save_model(copy, path, save_as_external_data=True, location=os.path.basename(path) + ".data")


def model_path(model, folder):
    """A path pet can read ``model`` from: a path as given, else a file written into ``folder``.
    TypeError for anything else."""
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        # pet's parser would take a name starting with '-' for a flag.
        return os.path.join(".", path) if path.startswith("-") else path
    path = os.path.join(folder, "model.onnx")
    if isinstance(model, (bytes, bytearray, memoryview)):
        with open(path, "wb") as file:
            file.write(model)
        return path
    import onnx

    if isinstance(model, onnx.ModelProto):
        _write_proto(model, path)
        return path
    raise TypeError(f"model must be an onnx.ModelProto, a path or the bytes of an ONNX model, not {type(model).__name__}")
