"""``tw.keras.visualization``: drawing boxes and masks on images (NumPy) and image galleries
(matplotlib, optional)."""
from .draw import draw_bounding_boxes, draw_segmentation_masks
from .plot import plot_bounding_box_gallery, plot_image_gallery, plot_segmentation_mask_gallery

__all__ = ["draw_bounding_boxes", "draw_segmentation_masks", "plot_bounding_box_gallery",
           "plot_image_gallery", "plot_segmentation_mask_gallery"]
