"""Linear algebra ops (``tw.linalg``): products, and matrix functions and decompositions."""
