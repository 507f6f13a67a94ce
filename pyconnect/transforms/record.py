"""The record transforms see: Connect's ConnectRecord and Headers, which live in the plugin SPI
(pyconnect/api/connect_record.py) because sink tasks receive them too."""

from pyconnect.api.connect_record import ConnectRecord, Header, Headers

__all__ = ["ConnectRecord", "Header", "Headers"]
