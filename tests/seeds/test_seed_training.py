"""Seed 004's training examples, run with ``import twinflow as tf``.

The MNIST loop uses the 8x8 digits shipped with twinflow (MNIST cannot be downloaded here), so
``tf.keras.datasets.mnist.load_data()`` becomes ``tf.keras.datasets.digits.load_data()`` and
pixels are scaled by 1/16 instead of 1/255; the loop runs a few batches instead of 3 epochs.
"""
# ruff: noqa: B007, UP008, UP032  (the seed's code is kept as the article wrote it)
from __future__ import annotations

import os

import numpy as np
import pytest

import twinflow as tf


def test_mnist_style_custom_training_loop():
    tf.random.set_seed(0)
    (mnist_images, mnist_labels), _ = tf.keras.datasets.digits.load_data()
    dataset = tf.data.Dataset.from_tensor_slices(
        (tf.cast(mnist_images[..., tf.newaxis] / 16, tf.float32),
         tf.cast(mnist_labels, tf.int64)))
    dataset = dataset.shuffle(1000).batch(32)
    mnist_model = tf.keras.Sequential([
        tf.keras.layers.Conv2D(16, [3, 3], activation='relu',
                               input_shape=(None, None, 1)),
        tf.keras.layers.Conv2D(16, [3, 3], activation='relu'),
        tf.keras.layers.GlobalAveragePooling2D(),
        tf.keras.layers.Dense(10)
    ])
    for images, labels in dataset.take(1):
        logits = mnist_model(images[0:1]).numpy()
        assert logits.shape == (1, 10)

    optimizer = tf.keras.optimizers.Adam()
    loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    loss_history = []

    def train_step(images, labels):
        with tf.GradientTape() as tape:
            logits = mnist_model(images, training=True)
            tf.debugging.assert_equal(logits.shape, (32, 10))
            loss_value = loss_object(labels, logits)
        loss_history.append(loss_value.numpy().mean())
        grads = tape.gradient(loss_value, mnist_model.trainable_variables)
        optimizer.apply_gradients(zip(grads, mnist_model.trainable_variables))

    def train(epochs):
        for epoch in range(epochs):
            for (batch, (images, labels)) in enumerate(dataset.take(8)):
                train_step(images, labels)
            print('Epoch {} finished'.format(epoch))

    train(epochs=3)
    assert len(loss_history) == 24
    assert all(np.isfinite(loss_history))
    assert np.mean(loss_history[-4:]) < np.mean(loss_history[:4])


def test_linear_regression_reaches_w3_b2():
    tf.random.set_seed(1)

    class Linear(tf.keras.Model):
        def __init__(self):
            super(Linear, self).__init__()
            self.W = tf.Variable(5., name='weight')
            self.B = tf.Variable(10., name='bias')

        def call(self, inputs):
            return inputs * self.W + self.B

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
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.01)
    initial = float(loss(model, training_inputs, training_outputs))
    assert 50 < initial < 90
    steps = 300
    for i in range(steps):
        grads = grad(model, training_inputs, training_outputs)
        optimizer.apply_gradients(zip(grads, [model.W, model.B]))
    final = float(loss(model, training_inputs, training_outputs))
    assert final == pytest.approx(1.0, abs=0.1)
    assert float(model.W.numpy()) == pytest.approx(3.0, abs=0.1)
    assert float(model.B.numpy()) == pytest.approx(2.0, abs=0.15)
    print("W = {}, B = {}".format(model.W.numpy(), model.B.numpy()))


def test_object_based_saving(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model(np.ones((1, 2), np.float32))
    model.save_weights('weights')
    model.load_weights('weights')

    x = tf.Variable(10.)
    checkpoint = tf.train.Checkpoint(x=x)
    x.assign(2.)
    checkpoint_path = './ckpt/'
    assert checkpoint.save('./ckpt/') == './ckpt/-1'
    x.assign(11.)
    checkpoint.restore(tf.train.latest_checkpoint(checkpoint_path))
    print(x)
    assert "numpy=2.0" in capsys.readouterr().out

    model = tf.keras.Sequential([
        tf.keras.layers.Conv2D(16, [3, 3], activation='relu'),
        tf.keras.layers.GlobalAveragePooling2D(),
        tf.keras.layers.Dense(10)
    ])
    optimizer = tf.keras.optimizers.Adam(learning_rate=0.001)
    checkpoint_dir = 'path/to/model_dir'
    if not os.path.exists(checkpoint_dir):
        os.makedirs(checkpoint_dir)
    checkpoint_prefix = os.path.join(checkpoint_dir, "ckpt")
    root = tf.train.Checkpoint(optimizer=optimizer, model=model)
    root.save(checkpoint_prefix)
    status = root.restore(tf.train.latest_checkpoint(checkpoint_dir))
    status.assert_existing_objects_matched()


def test_object_oriented_metrics():
    m = tf.keras.metrics.Mean("loss")
    m(0)
    m(5)
    assert float(m.result()) == 2.5
    m([8, 9])
    result = m.result()
    assert float(result) == 5.5
    assert result.dtype == tf.float32 and result.shape == ()


def test_summaries_and_tensorboard(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    logdir = "./tb/"
    writer = tf.summary.create_file_writer(logdir)
    steps = 1000
    with writer.as_default():  # or call writer.set_as_default() before the loop.
        for i in range(steps):
            step = i + 1
            # Calculate loss with your real train function.
            loss = 1 - 0.001 * step
            if step % 100 == 0:
                tf.summary.scalar('loss', loss, step=step)
    files = os.listdir('tb/')
    assert len(files) == 1 and files[0].startswith("events.out.tfevents.")
    assert files[0].endswith(".v2")
    assert os.path.getsize(os.path.join('tb', files[0])) > 200
