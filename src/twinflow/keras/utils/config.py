"""``keras.utils.Config``: a dict with attribute access that can be frozen."""
from __future__ import annotations

import copy
import json
from typing import Any


class Config:
    """A configuration object: ``config.lr = 0.1`` and ``config["lr"]`` are the same entry;
    ``freeze()`` makes it read-only.

    Args:
        **kwargs: the initial entries.
    """

    __initialized = False

    def __init__(self, **kwargs) -> None:
        self._config = kwargs
        self._frozen = False
        self.__initialized = True

    def freeze(self) -> None:
        """Makes the config read-only.

        Returns:
            None.
        """
        self._frozen = True

    def unfreeze(self) -> None:
        """Makes the config writable again.

        Returns:
            None.
        """
        self._frozen = False

    @property
    def frozen(self) -> bool:
        """Whether the config is read-only."""
        return self._frozen

    def _check(self) -> None:
        if self._frozen:
            raise ValueError("Cannot mutate attribute(s) because the config is frozen.")

    def __setattr__(self, name: str, value) -> None:
        if not self.__initialized or name.startswith("_"):
            object.__setattr__(self, name, value)
            return
        self._check()
        self._config[name] = value

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._config[name]
        except KeyError:
            raise AttributeError(f"Unknown attribute: '{name}'") from None

    def __delattr__(self, name: str) -> None:
        self._check()
        del self._config[name]

    def __setitem__(self, key: str, value) -> None:
        self._check()
        self._config[key] = value

    def __getitem__(self, key: str) -> Any:
        return self._config[key]

    def __delitem__(self, key: str) -> None:
        self._check()
        del self._config[key]

    def __contains__(self, key) -> bool:
        return key in self._config

    def __len__(self) -> int:
        return len(self._config)

    def __iter__(self):
        return iter(self._config)

    def __repr__(self) -> str:
        return f"<Config {self._config}>"

    def __copy__(self) -> Config:
        return Config(**copy.copy(self._config))

    def __deepcopy__(self, memo) -> Config:
        return Config(**copy.deepcopy(self._config, memo))

    def get(self, key: str, default=None) -> Any:
        """The entry ``key``, or ``default``.

        Args:
            key: the name.
            default: returned when absent.

        Returns:
            The value.
        """
        return self._config.get(key, default)

    def pop(self, *args) -> Any:
        """Removes and returns an entry (as ``dict.pop``).

        Args:
            *args: the key, and optionally a default.

        Returns:
            The value.
        """
        self._check()
        return self._config.pop(*args)

    def update(self, *args, **kwargs) -> None:
        """Adds entries (as ``dict.update``).

        Args:
            *args: a mapping or pairs.
            **kwargs: entries.

        Returns:
            None.
        """
        self._check()
        self._config.update(*args, **kwargs)

    def keys(self):
        """The entry names.

        Returns:
            A keys view.
        """
        return self._config.keys()

    def values(self):
        """The values.

        Returns:
            A values view.
        """
        return self._config.values()

    def items(self):
        """The (name, value) pairs.

        Returns:
            An items view.
        """
        return self._config.items()

    def as_dict(self) -> dict:
        """A copy of the entries as a dict.

        Returns:
            The dict.
        """
        return copy.copy(self._config)

    def to_json(self) -> str:
        """The entries as JSON.

        Returns:
            The JSON text.
        """
        return json.dumps(self._config)
