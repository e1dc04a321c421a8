"""Card-game referee as a service: Gops and Gofo refereed over HTTP."""

__version__ = "0.1.0"
