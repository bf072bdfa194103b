"""tf.image, by family: ``resize.py`` (resize, crops and pads), ``color.py`` (color spaces,
adjustments, dtype conversion), ``geometry.py`` (flips, rot90, transpose, random crops and
flips), ``quality.py`` (psnr, ssim, gradients, total variation, patches), ``boxes.py``
(crop_and_resize, non-max suppression, drawn boxes)."""
