"""tw.distribute: contexts, strategy.run/reduce/gather, replica all-reduce and merge_call,
eagerly and inside tw.function (two replicas on /cpu:0 and /cpu:1)."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw

D = tw.distribute
DEVICES = ["/cpu:0", "/cpu:1"]


def _modes(fn):
    """Runs ``fn`` eagerly and as a tw.function."""
    return [fn(), tw.function(fn)()]


def _replica_value():
    rc = D.get_replica_context()
    return tw.cast(rc.replica_id_in_sync_group + 1, tw.float32)


def test_contexts_outside_inside_scope_and_run():
    s = D.MirroredStrategy(DEVICES)
    assert not D.has_strategy() and not D.in_cross_replica_context()
    assert D.get_replica_context().num_replicas_in_sync == 1
    assert D.get_strategy().num_replicas_in_sync == 1
    with s.scope():
        assert D.has_strategy() and D.in_cross_replica_context()
        assert D.get_replica_context() is None and D.get_strategy() is s
        assert D.get_cross_replica_context() is s
    seen = []

    def fn():
        rc = D.get_replica_context()
        seen.append((D.get_strategy() is s, D.in_cross_replica_context(), rc.devices))
        return rc.replica_id_in_sync_group
    ids = s.run(fn)
    assert [int(v) for v in s.experimental_local_results(ids)] == [0, 1]
    assert seen == [(True, False, (s.extended.worker_devices[0],)),
                    (True, False, (s.extended.worker_devices[1],))]
    assert not D.has_strategy()


def test_mixing_strategies_is_an_error():
    a, b = D.MirroredStrategy(DEVICES), D.OneDeviceStrategy("/cpu:0")
    with a.scope():
        with pytest.raises(ValueError, match="Mixing different"):
            with b.scope():
                pass


def test_run_reduce_gather_eager_and_graph():
    s = D.MirroredStrategy(DEVICES)

    def fn():
        per = s.run(lambda: _replica_value() * tw.ones([2]))
        return (s.reduce(D.ReduceOp.SUM, per, axis=None), s.reduce("MEAN", per, axis=None),
                s.reduce("SUM", per, axis=0), s.reduce("MEAN", per, axis=0),
                s.gather(per, axis=0))
    for out in _modes(fn):
        np.testing.assert_allclose(out[0], [3, 3])
        np.testing.assert_allclose(out[1], [1.5, 1.5])
        np.testing.assert_allclose(out[2], 6.0)
        np.testing.assert_allclose(out[3], 1.5)
        np.testing.assert_allclose(out[4], [1, 1, 2, 2])


def test_reduce_of_a_plain_value():
    s = D.MirroredStrategy(DEVICES)
    np.testing.assert_allclose(s.reduce("MEAN", tw.constant(2.0), axis=None), 2.0)
    with pytest.raises(ValueError, match="non-DistributedValues"):
        s.reduce("SUM", tw.constant(2.0), axis=None)
    with pytest.raises(ValueError, match="reduce_op"):
        s.reduce("MAX", tw.constant(2.0), axis=None)


def test_all_reduce_all_gather_merge_call():
    s = D.MirroredStrategy(DEVICES)

    def replica():
        rc = D.get_replica_context()
        v = _replica_value()
        total = rc.all_reduce("SUM", {"a": v, "b": [v * 10]})
        mean = rc.all_reduce(D.ReduceOp.MEAN, v)
        gathered = rc.all_gather(tw.reshape(v, [1]), axis=0)
        merged = rc.merge_call(lambda strategy, x: strategy.reduce("SUM", x, axis=None),
                               args=(v,))
        return total["a"], total["b"][0], mean, gathered, merged

    def fn():
        return s.experimental_local_results(s.run(replica))
    for results in _modes(fn):
        for a, b, mean, gathered, merged in results:
            assert float(a) == 3 and float(b) == 30 and float(mean) == 1.5
            np.testing.assert_allclose(gathered, [1, 2])
            assert float(merged) == 3


def test_merge_call_runs_once_in_cross_replica_context():
    s = D.MirroredStrategy(DEVICES)
    calls = []

    def merge_fn(strategy, value):
        calls.append(D.in_cross_replica_context())
        assert isinstance(value, D.PerReplica)
        return value  # each replica gets its own value back

    def replica():
        v = _replica_value()
        return D.get_replica_context().merge_call(merge_fn, args=(v,))
    out = s.run(replica)
    assert calls == [True]
    assert [float(v) for v in out.values] == [1.0, 2.0]


def test_replica_error_propagates_and_mismatched_merge_is_reported():
    s = D.MirroredStrategy(DEVICES)

    def bad():
        if int(D.get_replica_context().replica_id_in_sync_group) == 1:
            raise KeyError("replica one failed")
        return D.get_replica_context().all_reduce("SUM", 1.0)
    with pytest.raises((KeyError, RuntimeError)):
        s.run(bad)

    def uneven():
        if int(D.get_replica_context().replica_id_in_sync_group) == 0:
            return D.get_replica_context().all_reduce("SUM", tw.constant(1.0))
        return tw.constant(0.0)
    with pytest.raises(RuntimeError, match="same calls"):
        s.run(uneven)


def test_run_with_per_replica_args_and_tw_function():
    s = D.MirroredStrategy(DEVICES)
    per = s.experimental_distribute_values_from_function(
        lambda ctx: tw.constant(float(ctx.replica_id_in_sync_group * 10)))
    assert isinstance(per, D.PerReplica)

    @tw.function
    def fn(x):
        return x + 1.0
    out = s.run(fn, args=(per,))
    assert [float(v) for v in s.experimental_local_results(out)] == [1.0, 11.0]

    @tw.function
    def outer(p):
        return s.reduce("SUM", s.run(lambda x: x * 2.0, args=(p,)), axis=None)
    assert float(outer(per)) == 20.0


def test_default_and_one_device_strategies():
    d = D.get_strategy()
    assert d.num_replicas_in_sync == 1 and d.run(lambda x: x + 1, args=(1,)) == 2
    np.testing.assert_allclose(d.reduce("SUM", tw.constant([1.0, 2.0]), axis=0), 3.0)
    s = D.OneDeviceStrategy("/cpu:0")
    with s.scope():
        v = tw.Variable(2.0)
    assert type(v) is tw.Variable and s.extended.variable_created_in_scope(v)
    assert float(s.run(lambda: v * 3.0)) == 6.0
    with pytest.raises(TypeError):
        D.OneDeviceStrategy(0)


def test_experimental_set_strategy():
    s = D.MirroredStrategy(DEVICES)
    D.experimental_set_strategy(s)
    try:
        assert D.get_strategy() is s and D.in_cross_replica_context()
    finally:
        D.experimental_set_strategy(None)
    assert not D.has_strategy()


def test_cross_device_ops_agree():
    for ops in [D.ReductionToOneDevice(), D.NcclAllReduce(), D.HierarchicalCopyAllReduce(2),
                D.ReductionToOneDevice("/cpu:1", accumulation_fn=tw.math.add_n)]:
        s = D.MirroredStrategy(["/cpu:0", "/cpu:1", "/cpu:2"], cross_device_ops=ops)
        per = s.run(lambda: _replica_value() * tw.ones([2]))
        np.testing.assert_allclose(s.reduce("SUM", per, axis=None), [6, 6])
        m = ops.reduce("MEAN", per, destinations=["/cpu:0", "/cpu:1"])
        assert isinstance(m, D.Mirrored) and len(m.values) == 2
        np.testing.assert_allclose(m.values[1], [2, 2])
        b = ops.broadcast(tw.constant(1.0), "/cpu:2")
        assert float(b.values[0]) == 1.0
    with pytest.raises(ValueError, match="num_packs"):
        D.NcclAllReduce(num_packs=-1)
    with pytest.raises(TypeError, match="CrossDeviceOps"):
        D.MirroredStrategy(DEVICES, cross_device_ops="nccl")
    with pytest.raises(ValueError, match="duplicates"):
        D.MirroredStrategy(["/cpu:0", "/cpu:0"])


def test_options_and_unsupported():
    o = D.experimental.CommunicationOptions(
        bytes_per_pack=1024, timeout_seconds=5,
        implementation=D.experimental.CollectiveCommunication.RING)
    assert o.implementation is D.experimental.CommunicationImplementation.RING
    with pytest.raises(ValueError):
        D.experimental.CommunicationOptions(bytes_per_pack=-1)
    with pytest.raises(NotImplementedError):
        D.RunOptions(experimental_xla_options=object())
    for cls in [D.TPUStrategy, D.ParameterServerStrategy, D.experimental.CentralStorageStrategy,
                D.Server, D.experimental.coordinator.ClusterCoordinator]:
        with pytest.raises(NotImplementedError, match="not supported"):
            cls(None)


def test_loss_helpers_count_the_replicas():
    s = D.MirroredStrategy(DEVICES)
    assert float(tw.nn.compute_average_loss(tw.ones([4]))) == 1.0
    per = s.run(lambda: (tw.nn.compute_average_loss(tw.ones([4])),
                         tw.nn.compute_average_loss(tw.ones([4]), global_batch_size=2),
                         tw.nn.scale_regularization_loss(1.0)))
    assert [float(v) for v in per[0].values] == [0.5, 0.5]
    assert [float(v) for v in per[1].values] == [2.0, 2.0]
    assert [float(v) for v in per[2].values] == [0.5, 0.5]


def test_cross_replica_methods_refused_inside_a_replica():
    s = D.MirroredStrategy(DEVICES)
    with pytest.raises(RuntimeError, match="cross-replica context"):
        s.run(lambda: s.reduce("SUM", tw.constant(1.0), axis=None))


def test_replicas_and_copies_run_on_their_logical_devices():
    from tests.helpers.devices import logical_cpus
    with logical_cpus(2):
        s = D.MirroredStrategy(DEVICES)
        with s.scope():
            v = tw.Variable([1.0, 2.0])
        names = list(s.extended.worker_devices)
        assert [c.device for c in v.values] == names
        eager = s.run(lambda: v * 2.0)
        graph = tw.function(lambda: s.run(lambda: v * 2.0))()
        for out in (eager, graph):
            assert [t.device for t in out.values] == names
        g = tw.function(lambda: s.run(lambda: v * 2.0)).get_concrete_function().graph
        assert {op.device for op in g.get_operations() if op.type == "Mul"} == set(names)


@pytest.mark.parametrize("graph", [False, True])
def test_extended_methods(graph):
    s = D.MirroredStrategy(DEVICES)
    ext = s.extended
    with s.scope():
        v = tw.Variable([1.0, 1.0])
    assert ext.variable_created_in_scope(v) and ext.value_container(v.values[1]) is v

    def fn():
        per = s.run(lambda: _replica_value() * tw.ones([2]))
        with s.scope():
            r = ext.reduce_to("SUM", per, destinations=v)
            b = ext.batch_reduce_to("MEAN", [(per, "/cpu:0"), (per, DEVICES)])
            c = ext.broadcast_to(tw.constant(5.0), DEVICES)
            ext.update(v, lambda copy, delta: copy.assign_add(delta), args=(r,))
        return r, b, c
    r, b, c = tw.function(fn)() if graph else fn()
    assert isinstance(r, D.Mirrored) and len(r.values) == 2
    np.testing.assert_allclose(r.values[1], [3, 3])
    np.testing.assert_allclose(b[0], [1.5, 1.5])
    assert isinstance(b[1], D.Mirrored) and float(c.values[1]) == 5.0
    assert [c_.numpy().tolist() for c_ in v.values] == [[4.0, 4.0], [4.0, 4.0]]
    with ext.colocate_vars_with(v):
        assert float(tw.constant(1.0)) == 1.0
