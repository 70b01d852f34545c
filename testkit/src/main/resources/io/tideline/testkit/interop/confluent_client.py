"""An independent client of Tideline's topics: Confluent's own Python client (confluent-kafka,
its AvroSerializer/AvroDeserializer over fastavro) speaking the Confluent wire format to the
registry's Confluent-compatible API (/apis/ccompat/v7). It knows nothing of Apicurio or of
Tideline's code; if it can produce a job with the published schema and decode every topic,
the subjects are usable as they are (issue #16 finding 7, ADR 0013).

  confluent_client.py produce-job BOOTSTRAP CCOMPAT_URL TOPIC JOB_ID
      produce one JobSubmitted with the latest published schema of TOPIC-value (never registers)
  confluent_client.py decode BOOTSTRAP CCOMPAT_URL TOPIC [TOPIC ...]
      read every record of each topic up to its end, decode it with the registry's schema,
      re-encode it with the same writer schema and print one JSON line per record:
      {"topic", "partition", "offset", "schemaId", "reencoded" (hex of the Avro body), "fields"}
"""
import datetime
import io
import json
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
import fastavro


def produce_job(bootstrap, registry, topic, job_id):
    client = SchemaRegistryClient({"url": registry})
    latest = client.get_latest_version(topic + "-value")
    serializer = AvroSerializer(client, latest.schema.schema_str,
                                conf={"auto.register.schemas": False, "use.latest.version": True})
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    job = {
        "jobId": job_id, "submittedAt": now, "tenant": "search", "team": "ranking",
        "user": "pyuser", "workloadClass": "TRAINING", "critical": False, "preemptible": True,
        "preemptionRight": False, "serviceId": None, "keyTraining": False,
        "resources": {"gpuCount": 8, "gpuShare": 1.0, "gangSize": 8, "nodes": 1,
                      "allowedGpuModels": [], "hardwarePreference": "ANY"},
        "deadline": None, "expectedDurationSeconds": 3600,
        "checkpoint": {"stateSizeGb": 80.0, "storageBandwidthGbPerSec": 2.0, "writeShards": 1,
                       "intervalSeconds": 600},
        "dataCacheGb": 0.0,
        "contacts": {"email": "pyuser@example.com", "slackUserId": None, "locale": "en"},
    }
    value = serializer(job, SerializationContext(topic, MessageField.VALUE))
    producer = Producer({"bootstrap.servers": bootstrap})
    errors = []
    producer.produce(topic, key=job_id.encode(), value=value,
                     on_delivery=lambda err, msg: errors.append(err) if err else None)
    producer.flush(30)
    if errors:
        raise SystemExit("delivery failed: %s" % errors)
    print(json.dumps({"produced": job_id, "schemaId": latest.schema_id, "topic": topic}))


def decode(bootstrap, registry, topics):
    client = SchemaRegistryClient({"url": registry})
    deserializer = AvroDeserializer(client)
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "confluent-interop",
                         "enable.auto.commit": False, "auto.offset.reset": "earliest",
                         "isolation.level": "read_committed"})
    writers = {}
    for topic in topics:
        meta = consumer.list_topics(topic, timeout=30).topics[topic]
        parts = [TopicPartition(topic, p, 0) for p in sorted(meta.partitions)]
        ends = {}
        for tp in parts:
            low, high = consumer.get_watermark_offsets(tp, timeout=30)
            ends[tp.partition] = high
            tp.offset = low
        pending = {p: e for p, e in ends.items() if e > 0}
        if not pending:
            print(json.dumps({"topic": topic, "empty": True}))
            continue
        consumer.assign(parts)
        remaining = dict(pending)  # partition -> end offset still to reach
        deadline = time.monotonic() + 60
        while remaining and time.monotonic() < deadline:
            msg = consumer.poll(1.0)
            # done with a partition once its position passed its end offset (a transaction's
            # commit marker can be the last offset: no message ever carries it)
            for tp in consumer.position([TopicPartition(topic, p) for p in list(remaining)]):
                if tp.offset >= remaining[tp.partition]:
                    remaining.pop(tp.partition, None)
            if msg is None:
                continue
            if msg.error():
                raise SystemExit("consume error: %s" % msg.error())
            raw = msg.value()
            if raw is None:
                continue
            schema_id = int.from_bytes(raw[1:5], "big")
            record = deserializer(raw, SerializationContext(topic, MessageField.VALUE))
            if schema_id not in writers:
                writers[schema_id] = fastavro.parse_schema(
                    json.loads(client.get_schema(schema_id).schema_str))
            out = io.BytesIO()
            fastavro.schemaless_writer(out, writers[schema_id], record)
            print(json.dumps({"topic": topic, "partition": msg.partition(),
                              "offset": msg.offset(), "schemaId": schema_id,
                              "reencoded": out.getvalue().hex(),
                              "fields": sorted(record.keys())}), flush=True)
        if remaining:
            raise SystemExit("timed out reading %s: partitions %s not read to their end"
                             % (topic, sorted(remaining)))
        consumer.unassign()
    consumer.close()


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "produce-job":
        produce_job(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    elif mode == "decode":
        decode(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        raise SystemExit("unknown mode " + mode)
