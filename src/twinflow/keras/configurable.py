"""``Configurable``: the ``get_config``/``from_config`` pair that constraints, initializers,
learning-rate schedules, regularizers, layers and optimizers share. An object is saved as its
constructor arguments; a subclass names them in ``_config_keys`` (each read back from the
attribute of the same name) or overrides ``get_config`` where a value needs converting."""
from __future__ import annotations

from typing import Any


class Configurable:
    """Mixin: ``type(obj).from_config(obj.get_config())`` rebuilds ``obj``."""

    # The constructor arguments, each stored on the object under the same name.
    _config_keys: tuple[str, ...] = ()

    def get_config(self) -> dict:
        """The constructor arguments.

        Returns:
            A dict.
        """
        return {key: getattr(self, key) for key in self._config_keys}

    @classmethod
    def from_config(cls, config: dict) -> Any:
        """Builds an object of this class from ``get_config()``'s output.

        Args:
            config: the arguments.

        Returns:
            The object.
        """
        return cls(**config)


def serialize(obj: Any) -> dict:
    """Keras 3's serialized form of an object with ``get_config`` (a layer, optimizer,
    schedule...): ``{"class_name": <its class name>, "config": obj.get_config()}``.

    Args:
        obj: the object.

    Returns:
        The dict.
    """
    return {"class_name": type(obj).__name__, "config": obj.get_config()}
