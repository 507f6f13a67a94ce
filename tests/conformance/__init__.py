"""Cases ported from Apache Kafka's own tests; each is marked `@pytest.mark.kafka("TestClass.testMethod")`."""
