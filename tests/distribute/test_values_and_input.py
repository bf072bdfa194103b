"""Mirrored and sync-on-read variables, PerReplica values and distributed datasets, eagerly
and inside tw.function."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw

D = tw.distribute
DEVICES = ["/cpu:0", "/cpu:1"]


def _rid():
    return tw.cast(D.get_replica_context().replica_id_in_sync_group, tw.float32)


@pytest.mark.parametrize("graph", [False, True])
def test_mirrored_variable_rules(graph):
    s = D.MirroredStrategy(DEVICES)
    with s.scope():
        none = tw.Variable(1.0)
        mean = tw.Variable(1.0, aggregation=tw.VariableAggregation.MEAN)
        first = tw.Variable(1.0, aggregation=tw.VariableAggregation.ONLY_FIRST_REPLICA)
        total = tw.Variable(0.0, aggregation=tw.VariableAggregation.SUM)
    assert isinstance(none, D.MirroredVariable) and isinstance(none, tw.Variable)
    devs = s.extended.worker_devices
    assert none.device == devs[0]
    with tw.device("/cpu:1"):
        assert none.device == devs[1]

    def replica():
        r = _rid()
        mean.assign(r * 10.0)              # (0 + 10) / 2 on every copy
        first.assign(r + 5.0)              # replica 0's value
        total.assign_add(r + 1.0)          # 0 + (1 + 2)
        none.assign_add(1.0)               # each copy +1: stays mirrored
        return none.read_value()
    fn = tw.function(lambda: s.run(replica)) if graph else (lambda: s.run(replica))
    out = fn()
    assert isinstance(out, D.PerReplica)
    for v, want in [(none, 2.0), (mean, 5.0), (first, 5.0), (total, 3.0)]:
        assert [float(c.numpy()) for c in v.values] == [want, want], v.name
    none.assign(7.0)  # cross-replica: every copy
    assert [float(c.numpy()) for c in none.values] == [7.0, 7.0]


def test_mirrored_variable_gradient_per_replica():
    s = D.MirroredStrategy(DEVICES)
    with s.scope():
        w = tw.Variable([1.0, 2.0])

    def replica():
        with tw.GradientTape() as tape:
            loss = tw.reduce_sum(w * (_rid() + 1.0))
        return tape.gradient(loss, w)
    for fn in [lambda: s.run(replica), tw.function(lambda: s.run(replica))]:
        g = fn()
        np.testing.assert_allclose(g.values[0], [1, 1])
        np.testing.assert_allclose(g.values[1], [2, 2])


def test_int_mean_in_replica_context_is_refused():
    s = D.MirroredStrategy(DEVICES)
    with s.scope():
        v = tw.Variable(1, aggregation=tw.VariableAggregation.MEAN)
    with pytest.raises(ValueError, match="non-float"):
        s.run(lambda: v.assign(2))


@pytest.mark.parametrize("graph", [False, True])
def test_sync_on_read_variable(graph):
    s = D.MirroredStrategy(DEVICES)
    with s.scope():
        total = tw.Variable(0.0, synchronization=tw.VariableSynchronization.ON_READ,
                            aggregation=tw.VariableAggregation.SUM)
        mean = tw.Variable(0.0, synchronization=tw.VariableSynchronization.ON_READ,
                           aggregation=tw.VariableAggregation.MEAN)
    assert isinstance(total, D.SyncOnReadVariable) and not total.trainable

    def replica():
        total.assign_add(_rid() + 1.0)
        mean.assign(_rid() * 4.0)
        return total.read_value()  # the replica's own copy
    fn = tw.function(lambda: s.run(replica)) if graph else (lambda: s.run(replica))
    local = fn()
    assert [float(v) for v in local.values] == [1.0, 2.0]
    assert float(total.numpy()) == 3.0 and float(mean.numpy()) == 2.0
    with s.scope():
        assert float(total.read_value()) == 3.0
    total.assign(10.0)  # cross-replica SUM assign: each copy gets 10 / 2
    assert [float(c.numpy()) for c in total.values] == [5.0, 5.0]
    with pytest.raises(ValueError, match="cross-replica"):
        total.assign_add(1.0)
    with pytest.raises(ValueError, match="non-trainable"):
        with s.scope():
            tw.Variable(0.0, trainable=True, synchronization=tw.VariableSynchronization.ON_READ)
    with pytest.raises(ValueError, match="NONE"):
        with s.scope():
            tw.Variable(0.0, synchronization=tw.VariableSynchronization.NONE)


def test_variables_created_inside_run_are_shared():
    s = D.MirroredStrategy(DEVICES)
    made = []

    def replica():
        v = tw.Variable(3.0, name="inner")
        made.append(v)
        return v.read_value()
    s.run(replica)
    assert made[0] is made[1] and isinstance(made[0], D.MirroredVariable)


def test_checkpoint_style_set_and_value():
    s = D.MirroredStrategy(DEVICES)
    with s.scope():
        v = tw.Variable(np.zeros(2, np.float32))
    v._set(np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose(v.values[1].numpy(), [1, 2])
    np.testing.assert_allclose(np.asarray(v), [1, 2])


def _dataset(n=10, batch=4):
    x = np.arange(n * 2, dtype=np.float32).reshape(n, 2)
    return x, tw.data.Dataset.from_tensor_slices((x, np.arange(n))).batch(batch)


def test_distribute_dataset_splits_global_batches():
    s = D.MirroredStrategy(DEVICES)
    x, ds = _dataset()
    dist = s.experimental_distribute_dataset(ds)
    sizes = []
    rows = []
    for bx, by in dist:
        assert isinstance(bx, D.PerReplica)
        sizes.append([int(v.shape[0]) for v in s.experimental_local_results(by)])
        rows += [v.numpy() for v in s.experimental_local_results(bx)]
    assert sizes == [[2, 2], [2, 2], [1, 1]]
    np.testing.assert_allclose(np.concatenate(rows), x)
    spec = dist.element_spec
    assert type(spec[0]).__name__ == "PerReplicaSpec"


def test_distributed_dataset_in_tw_function():
    s = D.MirroredStrategy(DEVICES)
    x, ds = _dataset(9, 5)
    dist = s.experimental_distribute_dataset(ds)

    @tw.function
    def total(d):
        acc = tw.constant(0.0)
        for bx, _ in d:
            acc += s.reduce("SUM", s.run(lambda t: tw.reduce_sum(t), args=(bx,)), axis=None)
        return acc
    assert float(total(dist)) == float(x.sum())

    opt_it = iter(dist)
    for _ in range(2):
        assert bool(opt_it.get_next_as_optional().has_value())
    assert not bool(opt_it.get_next_as_optional().has_value())

    it = iter(dist)

    @tw.function
    def step(iterator):
        bx, by = next(iterator)
        return s.gather(by, axis=0)
    np.testing.assert_array_equal(step(it), [0, 1, 2, 3, 4])
    np.testing.assert_array_equal(step(it), [5, 6, 7, 8])


def test_distribute_datasets_from_function():
    s = D.MirroredStrategy(DEVICES)
    contexts = []

    def dataset_fn(ctx):
        contexts.append((ctx.num_input_pipelines, ctx.input_pipeline_id,
                         ctx.num_replicas_in_sync, ctx.get_per_replica_batch_size(4)))
        return tw.data.Dataset.range(8).batch(2)
    dist = s.distribute_datasets_from_function(dataset_fn)
    got = [[v.numpy().tolist() for v in s.experimental_local_results(b)] for b in dist]
    assert contexts == [(1, 0, 2, 2)]
    assert got == [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]
    per = s.distribute_datasets_from_function(
        lambda ctx: tw.data.Dataset.range(2).map(lambda i: i + 10 * ctx.input_pipeline_id),
        D.InputOptions(experimental_replication_mode=D.InputReplicationMode.PER_REPLICA))
    first = next(iter(per))
    assert [int(v) for v in s.experimental_local_results(first)] == [0, 10]
    with pytest.raises(ValueError, match="divisible"):
        D.InputContext(1, 0, 2).get_per_replica_batch_size(3)


def test_distribute_dataset_bad_input():
    s = D.MirroredStrategy(DEVICES)
    with pytest.raises(TypeError, match="Dataset"):
        s.experimental_distribute_dataset([1, 2])
    with pytest.raises(ValueError, match="batched"):
        next(iter(s.experimental_distribute_dataset(tw.data.Dataset.range(3))))
    with pytest.raises(NotImplementedError, match="PER_REPLICA"):
        s.experimental_distribute_dataset(tw.data.Dataset.range(3), D.InputOptions(
            experimental_replication_mode=D.InputReplicationMode.PER_REPLICA))


def test_datasets_from_function_and_values_in_tw_function():
    s = D.MirroredStrategy(DEVICES)
    dist = s.distribute_datasets_from_function(
        lambda ctx: tw.data.Dataset.range(8).map(lambda i: tw.cast(i, tw.float32)).batch(2))

    @tw.function
    def total(d):
        acc = tw.constant(0.0)
        for b in d:
            acc += s.reduce("SUM", s.run(tw.reduce_sum, args=(b,)), axis=None)
        return acc
    assert float(total(dist)) == 28.0

    @tw.function
    def from_values():
        per = s.experimental_distribute_values_from_function(
            lambda ctx: tw.constant(float(ctx.replica_id_in_sync_group + 1)))
        return s.reduce("SUM", per, axis=None)
    assert float(from_values()) == 3.0
