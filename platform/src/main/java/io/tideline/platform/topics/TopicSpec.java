package io.tideline.platform.topics;

/**
 * One topic of the catalogue.
 *
 * @param name topic name
 * @param partitions partitions to create it with
 * @param compacted whether it is a compacted (latest-value-per-key) topic
 * @param key what the key is, in words (it decides ordering)
 * @param valueRecord Avro record name of the value (see {@code io.tideline.events})
 * @param flow producer -> consumers, in words
 */
public record TopicSpec(
    String name, int partitions, boolean compacted, String key, String valueRecord, String flow) {

  /** The dead-letter topic for records refused from this topic. */
  public String deadLetterTopic() {
    return name + ".dlq";
  }
}
