"""Board renderers: pure functions from engine views to Pillow images (design §6)."""
