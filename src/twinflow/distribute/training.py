"""What Keras needs to train under a strategy: the per-replica step, the loss scaling and the
gradient all-reduce (the hooks ``keras/models/trainer.py`` and the optimizer call).

``fit`` under ``strategy.scope()`` runs ``distributed_step``: the global batch is split over
the replicas (``extended._split_global_batch``), ``train_step`` runs in each, and the logs are
the first replica's values, with every compiled metric read across replicas (metric variables are
sync-on-read sums). Inside ``train_step``, replica k's loss is scaled by n_k / N (its share of
the global batch) before the gradient, and the optimizer sums the gradients of all replicas:
the update equals one replica's update on the whole batch (a mean loss over the global batch),
also when the last batch does not split evenly.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core import nest
from ..ops import array_ops, math_ops
from . import context
from .values import regroup, select_replica
from .variables import DistributedVariable


def _multi_replica_context():
    """The replica context when several replicas run (None otherwise)."""
    entry = context.current()
    rc = entry.replica_context
    if rc is None or entry.strategy.num_replicas_in_sync == 1:
        return None
    return rc


def scale_loss_for_replica(loss, batch) -> Any:
    """``loss`` times this replica's share of the global batch (n_k / N) when several
    replicas run; ``loss`` itself otherwise.

    Args:
        loss: the replica's mean loss over its own batch.
        batch: the replica's inputs (their first dimension is its batch size).

    Returns:
        The scaled loss, whose gradients the optimizer sums over the replicas.
    """
    rc = _multi_replica_context()
    if rc is None:
        return loss
    first = nest.flatten(batch)[0]
    local = math_ops.cast(array_ops.shape(first)[0], loss.dtype)
    total = rc.all_reduce("SUM", local)
    return loss * math_ops.div_no_nan(local, total)


def all_reduce_gradients(grads: list) -> list:
    """Sums each gradient over the replicas when several replicas run (in a replica context).

    Args:
        grads: gradients (tensors; None entries stay None).

    Returns:
        The summed gradients, the same on every replica.
    """
    rc = _multi_replica_context()
    if rc is None:
        return list(grads)
    present = [i for i, g in enumerate(grads) if g is not None]
    summed = rc.all_reduce("SUM", [grads[i] for i in present])
    out = list(grads)
    for i, g in zip(present, summed):
        out[i] = g
    return out


def _check_distributed(model, strategy) -> None:
    bad = [v.name for v in model.trainable_variables
           if not (isinstance(v, DistributedVariable) and v._distribute_strategy is strategy)]
    opt = getattr(model, "_tw_optimizer", None)
    it = getattr(opt, "_tw_iterations", None)
    if it is not None and not isinstance(it, DistributedVariable):
        bad.append("optimizer iterations")
    if bad:
        raise ValueError(f"The model trains under {strategy!r}, but these variables were not "
                         f"created in its scope: {bad[:5]}. Create the model and compile it "
                         "inside `with strategy.scope():`.")


def distributed_step(strategy, model, step: Callable, kind: str) -> Callable:
    """``step`` (a Keras train/test/predict step) run over the strategy's replicas.

    Args:
        strategy: the strategy the model was compiled under.
        model: the model.
        step: ``step(batch)``.
        kind: ``'train'``, ``'test'`` or ``'predict'``.

    Returns:
        ``fn(batch)`` returning the logs (train/test) or the predictions (predict).
    """
    parts = strategy.extended._local_replica_count

    def run(batch):
        with strategy.scope():
            if kind == "train" and model.trainable_variables:
                _check_distributed(model, strategy)
            per_replica = regroup(strategy.extended._split_global_batch(batch))
            outputs = strategy.run(step, args=(per_replica,))
            if kind == "train":
                _check_distributed(model, strategy)
            if kind == "predict":
                locals_ = strategy.experimental_local_results(outputs)
                ext = strategy.extended
                if ext._num_workers > 1:  # every worker gets the whole batch's predictions
                    return nest.map_structure(
                        lambda *xs: ext._cross_device_ops.all_gather(list(xs), 0)[0], *locals_)
                if parts == 1:
                    return locals_[0]
                return nest.map_structure(lambda *xs: array_ops.concat(list(xs), 0), *locals_)
            logs = dict(select_replica(0, outputs))
            for m in model.metrics:
                logs[m.name] = m.result()
            return logs
    return run
