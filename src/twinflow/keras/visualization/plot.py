"""``keras.visualization.plot_*_gallery``: image grids through matplotlib (optional: a clear
ImportError when it is missing)."""
from __future__ import annotations

import math

import numpy as np

from ..settings import image_data_format
from .draw import _numpy, batch_of_images, draw_bounding_boxes, draw_segmentation_masks


def _pyplot():
    try:
        import matplotlib.pyplot as plt  # noqa: PLC0415  (optional dependency, on use)
    except ImportError:
        raise ImportError("The keras.visualization plot functions require the `matplotlib` "
                          "package. Please install it with `pip install matplotlib`.") from None
    return plt


def plot_image_gallery(images, y_true=None, y_pred=None, label_map=None, rows=None,
                       cols=None, value_range=(0, 255), scale: float = 2, path=None,
                       show=None, transparent: bool = True, dpi: int = 60,
                       legend_handles=None, data_format=None) -> None:
    """Shows (or saves to ``path``) a grid of images, titled with labels.

    Args:
        images: ``[batch, h, w, c]`` images.
        y_true: true labels, shown with ``label_map``.
        y_pred: predicted labels.
        label_map: label -> name.
        rows: grid rows (default: about the square root of the batch).
        cols: grid columns.
        value_range: the images' (low, high).
        scale: inches per image.
        path: a file to save to (instead of showing).
        show: show the figure (default: when no ``path``).
        transparent: a transparent background when saving.
        dpi: the saved resolution.
        legend_handles: matplotlib legend handles.
        data_format: "channels_last" or "channels_first".

    Returns:
        None.
    """
    plt = _pyplot()
    if path is not None and show:
        raise ValueError("plot_gallery() expects either `path` to be set, or `show` to be "
                         "true.")
    if (y_true is not None or y_pred is not None) and label_map is None:
        raise ValueError("If `y_true` or `y_pred` are provided, a `label_map` must also be "
                         "provided.")
    show = show if show is not None else path is None
    arr = _numpy(images).astype("float32")
    if arr.ndim != 4:
        raise ValueError("`plot_images_gallery()` requires you to batch your `np.array` "
                         "samples together.")
    if (data_format or image_data_format()) == "channels_first":
        arr = arr.transpose(0, 2, 3, 1)
    n = arr.shape[0]
    rows = rows or int(math.ceil(math.sqrt(n)))
    cols = cols or int(math.ceil(n // rows))
    lo, hi = value_range
    arr = (arr - lo) / (hi - lo) * 255.0
    fig, axes = plt.subplots(nrows=rows, ncols=cols, figsize=(cols * scale, rows * scale),
                             frameon=False, layout="tight", squeeze=False)
    fig.subplots_adjust(wspace=0, hspace=0)
    if legend_handles is not None:
        fig.legend(handles=legend_handles, loc="lower center")
    y_true = None if y_true is None else _numpy(y_true)
    y_pred = None if y_pred is None else _numpy(y_pred)
    for r in range(rows):
        for c in range(cols):
            idx, ax = r * cols + c, axes[r, c]
            ax.axis("off")
            if idx >= n:
                continue
            ax.imshow(np.clip(arr[idx], 0, 255).astype("uint8"))
            title = []
            if y_true is not None and idx < len(y_true):
                title.append(f"Label: {label_map.get(y_true[idx], 'Unknown')}")
            if y_pred is not None and idx < len(y_pred):
                title.append(f"Pred: {label_map.get(y_pred[idx], 'Unknown')}")
            if title:
                ax.set_title("  ".join(title), fontsize=8)
    if path is not None:
        plt.savefig(fname=path, pad_inches=0, bbox_inches="tight", transparent=transparent,
                    dpi=dpi)
        plt.close()
    elif show:
        plt.show()
        plt.close()


def plot_bounding_box_gallery(images, bounding_box_format: str, y_true=None, y_pred=None,
                              value_range=(0, 255), true_color=(0, 188, 212),
                              pred_color=(255, 235, 59), line_thickness: int = 2,
                              font_scale: float = 1.0, text_thickness=None,
                              class_mapping=None, ground_truth_mapping=None,
                              prediction_mapping=None, legend: bool = False,
                              legend_handles=None, rows=None, cols=None, data_format=None,
                              **kwargs) -> None:
    """``plot_image_gallery`` of images with their true and predicted boxes drawn.

    Args:
        images: ``[batch, h, w, 3]`` images.
        bounding_box_format: the boxes' format.
        y_true: true ``{"boxes", "labels"}``.
        y_pred: predicted ``{"boxes", "labels"}``.
        value_range: the images' (low, high).
        true_color: colour of the true boxes.
        pred_color: colour of the predicted boxes.
        line_thickness: box line width.
        font_scale: label placement scale.
        text_thickness: as in ``draw_bounding_boxes``.
        class_mapping: label -> name for both.
        ground_truth_mapping: label -> name for the true boxes.
        prediction_mapping: label -> name for the predictions.
        legend: add a Ground Truth / Prediction legend.
        legend_handles: explicit legend handles.
        rows: grid rows.
        cols: grid columns.
        data_format: "channels_last" or "channels_first".
        **kwargs: passed to ``plot_image_gallery``.

    Returns:
        None.
    """
    _pyplot()
    from matplotlib import patches  # noqa: PLC0415  (optional dependency, on use)
    arr = batch_of_images(images, data_format)
    common = {"bounding_box_format": bounding_box_format, "line_thickness": line_thickness,
              "text_thickness": text_thickness, "font_scale": font_scale}
    if y_true is not None:
        arr = draw_bounding_boxes(arr, y_true, color=true_color,
                                  class_mapping=ground_truth_mapping or class_mapping,
                                  **common)
    if y_pred is not None:
        arr = draw_bounding_boxes(arr, y_pred, color=pred_color,
                                  class_mapping=prediction_mapping or class_mapping, **common)
    if legend:
        if legend_handles:
            raise ValueError("Only pass `legend` OR `legend_handles` to "
                             "`keras.visualization.plot_bounding_box_gallery()`.")
        legend_handles = [patches.Patch(color=np.array(true_color) / 255.0,
                                        label="Ground Truth"),
                          patches.Patch(color=np.array(pred_color) / 255.0,
                                        label="Prediction")]
    plot_image_gallery(arr, value_range=value_range, legend_handles=legend_handles, rows=rows,
                       cols=cols, **kwargs)


def plot_segmentation_mask_gallery(images, num_classes: int, value_range=(0, 255),
                                   y_true=None, y_pred=None, color_mapping=None,
                                   blend: bool = True, alpha: float = 0.8,
                                   ignore_index: int = -1, data_format=None,
                                   **kwargs) -> None:
    """One gallery row per image: the image, its true mask and its predicted mask.

    Args:
        images: ``[batch, h, w, 3]`` images.
        num_classes: the number of classes.
        value_range: the images' (low, high).
        y_true: true ``[batch, h, w, 1]`` masks.
        y_pred: predicted masks.
        color_mapping: class -> RGB colour.
        blend: blend masks with the images.
        alpha: the masks' weight.
        ignore_index: the id left uncoloured.
        data_format: "channels_last" or "channels_first".
        **kwargs: passed to ``plot_image_gallery``.

    Returns:
        None.
    """
    _pyplot()
    arr = batch_of_images(images, data_format)
    first = (data_format or image_data_format()) == "channels_first"
    drawn = []
    for masks in (y_true, y_pred):
        if masks is not None:
            m = _numpy(masks)
            m = (m.transpose(0, 2, 3, 1) if first else m).astype("int32")
            drawn.append(draw_segmentation_masks(arr, m, num_classes, color_mapping, alpha,
                                                 blend, ignore_index))
    tiles = [t for i in range(arr.shape[0]) for t in [arr[i]] + [d[i] for d in drawn]]
    plot_image_gallery(np.stack(tiles).astype("float32"), value_range=value_range,
                       rows=arr.shape[0], cols=1 + len(drawn), **kwargs)
