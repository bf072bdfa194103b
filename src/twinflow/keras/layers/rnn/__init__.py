"""Recurrent layers: cells, the RNN layer, SimpleRNN/LSTM/GRU, Bidirectional, TimeDistributed."""
from .cells import GRUCell, LSTMCell, SimpleRNNCell, StackedRNNCells
from .rnn import GRU, LSTM, RNN, SimpleRNN
from .wrappers import Bidirectional, TimeDistributed

__all__ = ["GRUCell", "LSTMCell", "SimpleRNNCell", "StackedRNNCells", "GRU", "LSTM", "RNN",
           "SimpleRNN", "Bidirectional", "TimeDistributed"]
