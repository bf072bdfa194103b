"""``tw.image``: image ops (re-exports of ``twinflow.ops.image``)."""
# TensorFlow's tf.image decoders and encoders are tf.io's (the same functions).
from .io import (  # noqa: F401,E402
                               decode_and_crop_jpeg,
                               decode_bmp,
                               decode_gif,
                               decode_image,
                               decode_jpeg,
                               decode_png,
                               decode_webp,
                               encode_jpeg,
                               encode_png,
                               extract_jpeg_shape,
                               is_jpeg,
)
from .io.jpeg_quality import (  # noqa: F401,E402
                               adjust_jpeg_quality,
                               random_jpeg_quality,
                               stateless_random_jpeg_quality,
)
from .ops.image.boxes import (  # noqa: F401
                               crop_and_resize,
                               draw_bounding_boxes,
                               non_max_suppression,
                               non_max_suppression_padded,
                               non_max_suppression_with_scores,
)
from .ops.image.color import (  # noqa: F401
                               adjust_brightness,
                               adjust_contrast,
                               adjust_gamma,
                               adjust_hue,
                               adjust_saturation,
                               convert_image_dtype,
                               grayscale_to_rgb,
                               hsv_to_rgb,
                               per_image_standardization,
                               rgb_to_grayscale,
                               rgb_to_hsv,
                               rgb_to_yiq,
                               rgb_to_yuv,
                               yiq_to_rgb,
                               yuv_to_rgb,
)
from .ops.image.extra16 import (  # noqa: F401
                               combined_non_max_suppression,
                               extract_glimpse,
                               non_max_suppression_overlaps,
                               sample_distorted_bounding_box,
                               stateless_sample_distorted_bounding_box,
)
from .ops.image.geometry import (  # noqa: F401
                               flip_left_right,
                               flip_up_down,
                               random_brightness,
                               random_contrast,
                               random_crop,
                               random_flip_left_right,
                               random_flip_up_down,
                               random_hue,
                               random_saturation,
                               rot90,
                               stateless_random_brightness,
                               stateless_random_contrast,
                               stateless_random_crop,
                               stateless_random_flip_left_right,
                               stateless_random_flip_up_down,
                               stateless_random_hue,
                               stateless_random_saturation,
                               transpose,
)
from .ops.image.proposals import generate_bounding_box_proposals  # noqa: F401
from .ops.image.quality import (  # noqa: F401
                               extract_patches,
                               image_gradients,
                               psnr,
                               sobel_edges,
                               ssim,
                               ssim_multiscale,
                               total_variation,
)
from .ops.image.resize import (  # noqa: F401
                               ResizeMethod,
                               central_crop,
                               crop_to_bounding_box,
                               pad_to_bounding_box,
                               resize,
                               resize_with_crop_or_pad,
                               resize_with_pad,
)
