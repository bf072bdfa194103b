"""NumPy-like functions over twinflow ops: the tables ``keras.ops`` and
``tw.experimental.numpy`` share (``elementwise.py``, ``arrays.py``, each built per dtype
``Policy``), and ``tw.experimental.numpy`` itself (``tnp.py``)."""
