"""What the models share: labelled photo folders (Rune55's photos, rendered scenes), the
whole pipeline's evaluation on them, and batch norms restored for a net rebuilt from ONNX."""
