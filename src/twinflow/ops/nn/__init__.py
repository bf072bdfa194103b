"""Neural-network ops: activations, softmax and losses, conv2d, pooling, normalization.

Activations and softmax are fused ops whose gradients are themselves ops (``ReluGrad``...), so
every rule stays differentiable. Convolutions and pools run on the strided-view kernels of
``conv_kernels`` (im2col and BLAS products); their gradient ops (``Conv2DBackpropInput``,
``MaxPoolGrad``...) close under differentiation. Losses, moments and normalizations are
compositions of other ops.
"""
