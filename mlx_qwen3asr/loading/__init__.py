"""Loading and checkpoint files: a folder or hub id -> a ready model (loading/load.py, loading/hub.py, loading/weights.py,
loading/layout.py), and the converter (convert/) that writes MLX folders, 8/4-bit included."""
