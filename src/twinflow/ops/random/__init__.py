"""Random ops and TensorFlow's global/op seed rules.

Seeds follow ``tf.random.set_seed``: with neither a global nor an op seed, results are
nondeterministic; with a global seed and no op seed, each op takes the next op seed from a
counter (eagerly from the context, in a graph from the graph), so a program re-run after
``set_seed(s)`` repeats its sequence; with an op seed and no global seed, the global seed is a
fixed default. Each (op type, dtype, global seed, op seed) has one PCG64 stream that advances on
every call, as TensorFlow's cached kernels do; ``set_seed`` resets the counter and the streams.

Stateless variants take a ``[2]`` seed tensor and are pure functions of it.
"""
