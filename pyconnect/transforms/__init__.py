"""Single message transforms and predicates (Connect's org.apache.kafka.connect.transforms), as a library:
the SPI (`Transformation`, `Predicate`), the record they see (`ConnectRecord`, `Headers`), the built-ins
under their Java names, and the chain a connector config builds (`build_chain`, `validate`)."""

from pyconnect.transforms.chain import TransformationChain, TransformationStage
from pyconnect.transforms.connector_config import ALIAS_KEYS, TransformValidation, build_chain, enrich, validate
from pyconnect.transforms.record import ConnectRecord, Header, Headers
from pyconnect.transforms.registry import PREDICATE_ALIASES, TRANSFORM_ALIASES, java_name
from pyconnect.transforms.spi import Predicate, Transformation

__all__ = [
    "ALIAS_KEYS", "ConnectRecord", "Header", "Headers", "PREDICATE_ALIASES", "Predicate", "TRANSFORM_ALIASES",
    "TransformValidation", "Transformation", "TransformationChain", "TransformationStage", "build_chain",
    "enrich", "java_name", "validate",
]
