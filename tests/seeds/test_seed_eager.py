"""The seed documents' eager examples, run with ``import twinflow as tf``.

Each test follows one example of /work/shared/seeds (000: eager vs graph, section 2 and the
eager debugging of section 7; 002: GradientTape and the custom GELU; 004: the eager guide) and
checks what it prints. Where the documents print ``tf.Tensor``/``tf.Variable``, twinflow prints
``tw.Tensor``/``tw.Variable``; multi-line tensors print on their own lines, as TensorFlow's do
(the scraped documents lost those newlines).
"""
# The examples are kept as the documents wrote them (str.format, unused loop variables).
# ruff: noqa: UP032, B007
from __future__ import annotations

import time

import numpy as np
import pytest

import twinflow as tf


@pytest.fixture
def eager_functions():
    """The seeds call tf.config.run_functions_eagerly(True) at the top; undo it afterwards."""
    with tf.config.run_functions_eagerly(True):
        yield


# ----- seed 000, section 2 -----------------------------------------------------------------

def test_seed000_basic_ops(capsys, eager_functions):
    a = tf.constant([[1, 2], [3, 4]])
    b = tf.constant([[5, 6], [7, 8]])
    c = tf.add(a, b)
    print("加法结果:", c)
    d = tf.matmul(a, b)
    print("矩阵乘法结果:", d)
    out = capsys.readouterr().out
    assert out == ("加法结果: tw.Tensor(\n[[ 6  8]\n [10 12]], shape=(2, 2), dtype=int32)\n"
                   "矩阵乘法结果: tw.Tensor(\n[[19 22]\n [43 50]], shape=(2, 2), dtype=int32)\n")


def test_seed000_gradient_and_numpy(capsys, eager_functions):
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = x * x * x
    grad = tape.gradient(y, x)
    print("梯度:", grad)
    numpy_array = np.array([[1, 2], [3, 4]])
    tensor_from_numpy = tf.convert_to_tensor(numpy_array)
    print("从NumPy数组转换:", tensor_from_numpy)
    out = capsys.readouterr().out
    assert out == ("梯度: tw.Tensor(12.0, shape=(), dtype=float32)\n"
                   "从NumPy数组转换: tw.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int64)\n")


def test_seed000_dynamic_function(capsys, eager_functions):
    def dynamic_function(x):
        if tf.reduce_sum(x) > 0:
            return x * 2
        else:
            return x / 2

    x1 = tf.constant([1, 2, 3])
    x2 = tf.constant([-1, -2, -3])
    print("正数情况:", dynamic_function(x1))
    print("负数情况:", dynamic_function(x2))
    out = capsys.readouterr().out
    assert out == ("正数情况: tw.Tensor([2 4 6], shape=(3,), dtype=int32)\n"
                   "负数情况: tw.Tensor([-0.5 -1.  -1.5], shape=(3,), dtype=float64)\n")


def test_seed000_eager_debugging_with_print(capsys, eager_functions):
    def debug_function(x):
        tf.print("Input x:", x)
        tf.print("Shape:", x.shape)
        tf.print("DType:", x.dtype)
        y = x * 2
        tf.print("Output y:", y)
        y_numpy = y.numpy()
        tf.print("y as numpy:", y_numpy)
        return y

    x = tf.constant([[1, 2], [3, 4]], dtype=tf.float32)
    result = debug_function(x)
    print("Result:", result)
    out, err = capsys.readouterr()
    assert err == ("Input x: [[1 2]\n [3 4]]\n"
                   "Shape: TensorShape([2, 2])\n"
                   "DType: tw.float32\n"
                   "Output y: [[2 4]\n [6 8]]\n"
                   "y as numpy: array([[2., 4.],\n       [6., 8.]], dtype=float32)\n")
    assert out == "Result: tw.Tensor(\n[[2. 4.]\n [6. 8.]], shape=(2, 2), dtype=float32)\n"


# ----- seed 002 ------------------------------------------------------------------------------

def test_seed002_eager_matmul_and_tape(capsys, eager_functions):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    y = tf.constant([[5.0, 6.0], [7.0, 8.0]])
    result = tf.matmul(x, y)
    print(f"矩阵乘法结果\n{result}")
    w = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        loss = w * w
    grad = tape.gradient(loss, w)
    print(f"梯度值{grad.numpy()}")
    out = capsys.readouterr().out
    assert out == "矩阵乘法结果\n[[19. 22.]\n [43. 50.]]\n梯度值6.0\n"


def test_seed002_persistent_tape_with_watch():
    w = tf.Variable(tf.random.normal([8, 4], mean=0.0, stddev=0.1))
    b = tf.Variable(tf.zeros([4]))
    att = tf.Variable(tf.random.uniform([8], 0, 1))
    x = tf.random.normal([3, 8])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(att)
        h1 = tf.matmul(x, w) + b
        attention = tf.nn.softmax(att) if hasattr(tf.nn, "softmax") else att
        loss = tf.reduce_mean(tf.square(h1)) + tf.reduce_sum(x * attention)
        total_loss = loss + tf.reduce_sum(tf.square(w)) * 0.01
    dw = tape.gradient(total_loss, w)
    db = tape.gradient(total_loss, b)
    d_att = tape.gradient(total_loss, att)
    assert dw.shape == (8, 4) and db.shape == (4,) and d_att.shape == (8,)


def test_seed002_custom_gelu_higher_order(capsys):
    def custom_activation(x):
        def gelu_approximate(x):
            return 0.5 * x * (1 + tf.tanh(tf.sqrt(2 / tf.constant(3.1415926535))
                                          * (x + 0.044715 * tf.pow(x, 3))))

        @tf.custom_gradient
        def custom_gelu(x):
            def grad(dy):
                cdf = 0.5 * (1.0 + tf.tanh(tf.sqrt(2 / tf.constant(3.1415926535))
                                           * (x + 0.044715 * tf.pow(x, 3))))
                pdf = tf.exp(-0.5 * tf.square(x)) / tf.sqrt(2 * tf.constant(3.1415926535))
                return dy * (cdf + x * pdf)
            return gelu_approximate(x), grad
        return custom_gelu(x)

    x = tf.Variable(2.0, dtype=tf.float32)
    with tf.GradientTape() as tape1:
        with tf.GradientTape() as tape2:
            y = custom_activation(x)
        first_order_grad = tape2.gradient(y, x)
    second_order_grad = tape1.gradient(first_order_grad, x)
    print(f"输入值{x.numpy()}")
    print(f"自定义激活函数输出{y.numpy():.6f}")
    print(f"一阶梯度{first_order_grad.numpy():.6f}")
    print(f"二阶梯度{second_order_grad.numpy():.6f}")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "输入值2.0"
    assert lines[1] == "自定义激活函数输出1.954598"

    def first(xv):  # the custom gradient, in NumPy
        cdf = 0.5 * (1 + np.tanh(np.sqrt(2 / np.pi) * (xv + 0.044715 * xv ** 3)))
        pdf = np.exp(-0.5 * xv * xv) / np.sqrt(2 * np.pi)
        return cdf + xv * pdf

    assert lines[2] == f"一阶梯度{first(2.0):.6f}"
    second = (first(2.0 + 1e-5) - first(2.0 - 1e-5)) / 2e-5
    assert float(lines[3].removeprefix("二阶梯度")) == pytest.approx(second, abs=1e-4)


# ----- seed 004 ------------------------------------------------------------------------------

def test_seed004_basics(capsys):
    assert tf.executing_eagerly() is True
    x = [[2.]]
    m = tf.matmul(x, x)
    print("hello, {}".format(m))
    a = tf.constant([[1, 2],
                     [3, 4]])
    print(a)
    b = tf.add(a, 1)
    print(b)
    print(a * b)
    c = np.multiply(a, b)
    print(c)
    print(a.numpy())
    out = capsys.readouterr().out
    assert out == ("hello, [[4.]]\n"
                   "tw.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)\n"
                   "tw.Tensor(\n[[2 3]\n [4 5]], shape=(2, 2), dtype=int32)\n"
                   "tw.Tensor(\n[[ 2  6]\n [12 20]], shape=(2, 2), dtype=int32)\n"
                   "[[ 2  6]\n [12 20]]\n"
                   "[[1 2]\n [3 4]]\n")


def test_seed004_fizzbuzz(capsys):
    def fizzbuzz(max_num):
        counter = tf.constant(0)
        max_num = tf.convert_to_tensor(max_num)
        for num in range(1, max_num.numpy() + 1):
            num = tf.constant(num)
            if int(num % 3) == 0 and int(num % 5) == 0:
                print('FizzBuzz')
            elif int(num % 3) == 0:
                print('Fizz')
            elif int(num % 5) == 0:
                print('Buzz')
            else:
                print(num.numpy())
            counter += 1
        return counter

    assert int(fizzbuzz(15)) == 15
    assert capsys.readouterr().out.split() == \
        "1 2 Fizz 4 Buzz Fizz 7 8 Fizz Buzz 11 Fizz 13 14 FizzBuzz".split()


def test_seed004_tape_w_squared(capsys):
    w = tf.Variable([[1.0]])
    with tf.GradientTape() as tape:
        loss = w * w
    grad = tape.gradient(loss, w)
    print(grad)
    assert capsys.readouterr().out == "tw.Tensor([[2.]], shape=(1, 1), dtype=float32)\n"
    with pytest.raises(RuntimeError):
        tape.gradient(loss, w)  # "subsequent calls will raise a runtime error"


def test_seed004_variable_repr(capsys):
    x = tf.Variable(10.)
    x.assign(2.)
    print(x)
    assert capsys.readouterr().out == \
        "<tw.Variable 'Variable:0' shape=() dtype=float32, numpy=2.0>\n"


def test_seed004_linear_regression_without_keras(capsys):
    """The guide's Linear model, with the keras.Model base replaced by a plain class (keras
    is covered by the training tests) and SGD written out."""
    class Linear:
        def __init__(self):
            self.W = tf.Variable(5., name='weight')
            self.B = tf.Variable(10., name='bias')

        def __call__(self, inputs):
            return inputs * self.W + self.B

    tf.random.set_seed(0)
    NUM_EXAMPLES = 2000
    training_inputs = tf.random.normal([NUM_EXAMPLES])
    noise = tf.random.normal([NUM_EXAMPLES])
    training_outputs = training_inputs * 3 + 2 + noise

    def loss(model, inputs, targets):
        error = model(inputs) - targets
        return tf.reduce_mean(tf.square(error))

    def grad(model, inputs, targets):
        with tf.GradientTape() as tape:
            loss_value = loss(model, inputs, targets)
        return tape.gradient(loss_value, [model.W, model.B])

    model = Linear()
    print("Initial loss: {:.3f}".format(loss(model, training_inputs, training_outputs)))
    for i in range(300):
        grads = grad(model, training_inputs, training_outputs)
        for g, v in zip(grads, [model.W, model.B]):
            v.assign_sub(0.01 * g)
        if i % 100 == 0:
            print("Loss at step {:03d}: {:.3f}".format(
                i, loss(model, training_inputs, training_outputs)))
    print("W = {}, B = {}".format(model.W.numpy(), model.B.numpy()))
    out = capsys.readouterr().out
    assert out.startswith("Initial loss: ") and "Loss at step 200: " in out
    assert abs(float(model.W) - 3.0) < 0.1 and abs(float(model.B) - 2.0) < 0.1
    assert float(loss(model, training_inputs, training_outputs)) < 1.2


def test_seed004_line_search_step():
    def line_search_step(fn, init_x, rate=1.0):
        with tf.GradientTape() as tape:
            tape.watch(init_x)
            value = fn(init_x)
        grad = tape.gradient(value, init_x)
        grad_norm = tf.reduce_sum(grad * grad)
        init_value = value
        while value > init_value - rate * grad_norm:
            x = init_x - rate * grad
            value = fn(x)
            rate /= 2.0
        return x, value

    x, value = line_search_step(lambda x: tf.reduce_sum(tf.square(x - 1.0)),
                                tf.constant([3.0, -1.0]))
    np.testing.assert_allclose(x.numpy(), [1.0, 1.0])
    assert float(value) == 0.0


def test_seed004_custom_gradients(capsys):
    def log1pexp_naive(x):
        return tf.math.log(1 + tf.exp(x))

    def grad_naive(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            value = log1pexp_naive(x)
        return tape.gradient(value, x)

    assert grad_naive(tf.constant(0.)).numpy() == 0.5
    with np.errstate(over="ignore", invalid="ignore"):
        assert np.isnan(grad_naive(tf.constant(100.)).numpy())

    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))
        return tf.math.log(1 + e), grad

    def grad_log1pexp(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            value = log1pexp(x)
        return tape.gradient(value, x)

    assert grad_log1pexp(tf.constant(0.)).numpy() == 0.5
    with np.errstate(over="ignore"):
        assert grad_log1pexp(tf.constant(100.)).numpy() == 1.0


def test_seed004_clip_gradient_by_norm():
    @tf.custom_gradient
    def clip_gradient_by_norm(x, norm):
        y = tf.identity(x)

        def grad_fn(dresult):
            return [tf.clip_by_norm(dresult, norm), None]
        return y, grad_fn

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = clip_gradient_by_norm(x, 0.5) * tf.constant([30.0, 40.0])
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.3, 0.4], rtol=1e-6)


def test_seed004_device_placement(capsys):
    def measure(x, steps):
        tf.matmul(x, x)
        start = time.time()
        for i in range(steps):
            x = tf.matmul(x, x)
        _ = x.numpy()
        end = time.time()
        return end - start

    shape = (10, 10)
    steps = 5
    print("Time to multiply a {} matrix by itself {} times:".format(shape, steps))
    with tf.device("/cpu:0"):
        print("CPU: {} secs".format(measure(tf.random.normal(shape) * 0.1, steps)))
    if tf.config.experimental.list_physical_devices("GPU"):
        with tf.device("/gpu:0"):
            print("GPU: {} secs".format(measure(tf.random.normal(shape), steps)))
    else:
        print("GPU: not found")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Time to multiply a (10, 10) matrix by itself 5 times:"
    assert lines[1].startswith("CPU: ") and lines[1].endswith(" secs")
    assert lines[2] == "GPU: not found"
