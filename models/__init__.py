"""The shipped die-face model and the code that makes it (scenes, training, export)."""
