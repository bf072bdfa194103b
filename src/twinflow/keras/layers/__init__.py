"""``tw.keras.layers``."""
# ruff: noqa: F401  (a re-export module: every import is public)
from .activation import ELU, LeakyReLU, PReLU, ReLU, Softmax, ThresholdedReLU
from .attention import (
    AdditiveAttention,
    Attention,
    EinsumDense,
    GroupQueryAttention,
    MultiHeadAttention,
)
from .base import Layer
from .convolutional import (
    Conv1D,
    Conv1DTranspose,
    Conv2D,
    Conv2DTranspose,
    DepthwiseConv1D,
    DepthwiseConv2D,
    SeparableConv1D,
    SeparableConv2D,
)
from .convolutional import Conv1D as Convolution1D
from .convolutional import Conv1DTranspose as Convolution1DTranspose
from .convolutional import Conv2D as Convolution2D
from .convolutional import Conv2DTranspose as Convolution2DTranspose
from .convolutional import SeparableConv1D as SeparableConvolution1D
from .convolutional import SeparableConv2D as SeparableConvolution2D
from .core import (
    Activation,
    Dense,
    Dropout,
    Embedding,
    Flatten,
    Identity,
    Lambda,
    Masking,
    Reshape,
    ReversibleEmbedding,
)
from .input_layer import Input, InputLayer
from .input_spec import InputSpec
from .keras_tensor import KerasTensor
from .merging import (
    Add,
    Average,
    Concatenate,
    Dot,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
    add,
    average,
    concatenate,
    dot,
    maximum,
    minimum,
    multiply,
    subtract,
)
from .normalization import (
    BatchNormalization,
    GroupNormalization,
    LayerNormalization,
    RMSNormalization,
    UnitNormalization,
)
from .pooling import (
    AveragePooling1D,
    AveragePooling2D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalAveragePooling3D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    GlobalMaxPooling3D,
    MaxPooling1D,
    MaxPooling2D,
)
from .pooling import AveragePooling1D as AvgPool1D
from .pooling import AveragePooling2D as AvgPool2D
from .pooling import GlobalAveragePooling1D as GlobalAvgPool1D
from .pooling import GlobalAveragePooling2D as GlobalAvgPool2D
from .pooling import GlobalAveragePooling3D as GlobalAvgPool3D
from .pooling import GlobalMaxPooling1D as GlobalMaxPool1D
from .pooling import GlobalMaxPooling2D as GlobalMaxPool2D
from .pooling import GlobalMaxPooling3D as GlobalMaxPool3D
from .pooling import MaxPooling1D as MaxPool1D
from .pooling import MaxPooling2D as MaxPool2D
from .preprocessing import (
    AugMix,
    AutoContrast,
    CategoryEncoding,
    CenterCrop,
    ContrastLimitedAdaptiveHistogramEqualization,
    CutMix,
    Discretization,
    Equalization,
    HashedCrossing,
    Hashing,
    IntegerLookup,
    MaxNumBoundingBoxes,
    MelSpectrogram,
    MixUp,
    Normalization,
    RandAugment,
    RandomBrightness,
    RandomColorDegeneration,
    RandomColorJitter,
    RandomContrast,
    RandomCrop,
    RandomElasticTransform,
    RandomErasing,
    RandomFlip,
    RandomGaussianBlur,
    RandomGrayscale,
    RandomHeight,
    RandomHue,
    RandomInvert,
    RandomPerspective,
    RandomPosterization,
    RandomRotation,
    RandomSaturation,
    RandomSharpness,
    RandomShear,
    RandomTranslation,
    RandomWidth,
    RandomZoom,
    Rescaling,
    Resizing,
    Solarization,
    STFTSpectrogram,
    StringLookup,
    TextVectorization,
)
from .regularization import (
    ActivityRegularization,
    AlphaDropout,
    GaussianDropout,
    GaussianNoise,
    SpatialDropout1D,
    SpatialDropout2D,
    SpatialDropout3D,
)
from .reshaping import (
    Cropping1D,
    Cropping2D,
    Cropping3D,
    Permute,
    RepeatVector,
    UpSampling1D,
    UpSampling2D,
    UpSampling3D,
    ZeroPadding1D,
    ZeroPadding2D,
    ZeroPadding3D,
)
from .rnn import (
    GRU,
    LSTM,
    RNN,
    Bidirectional,
    GRUCell,
    LSTMCell,
    SimpleRNN,
    SimpleRNNCell,
    StackedRNNCells,
    TimeDistributed,
)
from .rnn.conv_lstm import ConvLSTM1D, ConvLSTM2D, ConvLSTM3D
from .rnn.layer_wrappers import Pipeline, SpectralNormalization, Wrapper
from .serialization import deserialize, serialize
from .tfsm import TFSMLayer
from .volumetric import (
    AdaptiveAveragePooling1D,
    AdaptiveAveragePooling2D,
    AdaptiveAveragePooling3D,
    AdaptiveMaxPooling1D,
    AdaptiveMaxPooling2D,
    AdaptiveMaxPooling3D,
    AveragePooling3D,
    AvgPool3D,
    Conv3D,
    Conv3DTranspose,
    Convolution3D,
    Convolution3DTranspose,
    MaxPool3D,
    MaxPooling3D,
)

__all__ = [name for name in dir() if not name.startswith("_")]
