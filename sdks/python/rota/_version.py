"""Versions: this package's, and the Rota HTTP API's it was written against (the OpenAPI document's ``info.version``)."""

__version__ = "0.1.0"
API_VERSION = "0.2.0"
