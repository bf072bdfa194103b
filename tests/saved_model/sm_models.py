"""The models the SavedModel tests save (run in a child process, from a copy of this file in
a temporary folder, so the loading process cannot import it)."""
import sys

import numpy as np

import twinflow as tw

k = tw.keras
X = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)


class Dense(tw.Module):
    def __init__(self):
        super().__init__()
        self.w = tw.Variable(np.arange(6, dtype=np.float32).reshape(3, 2) / 5, name="w")
        self.b = tw.Variable([0.5, -0.5], name="b")
        self.steps = tw.Variable(0, trainable=False, dtype=tw.int64, name="steps")

    @tw.function(input_signature=[tw.TensorSpec([None, 3], tw.float32, name="x")])
    def __call__(self, x):
        return tw.nn.relu(tw.matmul(x, self.w) + self.b)


class Outer(tw.Module):
    def __init__(self):
        super().__init__()
        self.inner = Dense()
        self.layers = [Dense(), Dense()]

    @tw.function(input_signature=[tw.TensorSpec([None, 3], tw.float32)])
    def __call__(self, x):
        return {"y": self.inner(x), "z": tw.reduce_sum(self.layers[1](x))}

    @tw.function
    def scaled(self, x, factor):
        return x * factor


class Counter(tw.Module):
    def __init__(self):
        super().__init__()
        self.count = tw.Variable(0, dtype=tw.int64, trainable=False)
        self.total = tw.Variable(0.0)

    @tw.function(input_signature=[tw.TensorSpec([], tw.float32)])
    def step(self, x):
        self.count.assign_add(1)
        self.total.assign_add(x)
        return self.total * 2.0


class Loop(tw.Module):
    def __init__(self):
        super().__init__()
        self.w = tw.Variable(2.0)

    @tw.function(input_signature=[tw.TensorSpec([], tw.float32), tw.TensorSpec([], tw.int32)])
    def __call__(self, x, n):
        acc = x
        for _ in tw.range(n):
            acc = acc * self.w
        if acc > 10.0:
            acc = acc - 10.0
        else:
            acc = acc + 1.0
        return acc


@tw.custom_gradient
def clipped_square(x):
    def grad(dy):
        return tw.clip_by_value(dy * 2.0 * x, -1.0, 1.0)
    return x * x, grad


class Custom(tw.Module):
    @tw.function(input_signature=[tw.TensorSpec([None], tw.float32)])
    def __call__(self, x):
        return clipped_square(x)


class Sub(k.Model):
    def __init__(self):
        super().__init__()
        self.d1 = k.layers.Dense(3)
        self.d2 = k.layers.Dense(2)

    def call(self, x):
        return self.d2(tw.nn.relu(self.d1(x)))


def build(out: str) -> dict:
    """Saves every model under ``out``; returns name -> expected outputs."""
    tw.keras.utils.set_random_seed(1)
    expected = {}
    outer = Outer()
    outer.scaled(tw.constant(X), tw.constant(2.0))
    tw.saved_model.save(outer, f"{out}/module")
    expected["module_y"] = outer(X)["y"].numpy()
    expected["module_z"] = outer(X)["z"].numpy()
    tw.saved_model.save(Counter(), f"{out}/counter")
    loop = Loop()
    tw.saved_model.save(loop, f"{out}/loop")
    expected["loop"] = np.array([loop(tw.constant(1.5), tw.constant(n)).numpy()
                                 for n in (0, 2, 3)])
    tw.saved_model.save(Custom(), f"{out}/custom",
                        options=tw.saved_model.SaveOptions(experimental_custom_gradients=True))
    seq = k.Sequential([k.layers.Dense(4, activation="relu", input_shape=(3,)),
                        k.layers.Dense(2)])
    inp = k.Input((3,))
    fun = k.Model(inp, k.layers.Dense(1)(k.layers.Dense(5, activation="tanh")(inp)))
    sub = Sub()
    sub(X)
    for name, m in (("sequential", seq), ("functional", fun), ("subclassed", sub)):
        m.export(f"{out}/{name}")
        expected[name] = m(X).numpy()
    tw.saved_model.save(seq, f"{out}/sequential_saved")
    return expected


if __name__ == "__main__":
    np.savez(sys.argv[1] + "/expected.npz", **build(sys.argv[1]))
