"""The computer opponent: batch random playouts (`batch`) and the players of each level."""
