"""The one training chain every model here goes through: its schedule, its loop with
checkpoints that resume, its ONNX export checked against onnxruntime, and its card's common
fields. Each model brings only its task: net, data, loss, scores and what its card adds."""
