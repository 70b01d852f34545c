package io.tideline.platform.topics;

/**
 * One topic of the catalogue.
 *
 * @param name topic name
 * @param partitions partitions to create it with
 * @param compacted whether it is a compacted (latest-value-per-key) topic
 * @param retainedForever whether records are never deleted by time ({@code retain} in the
 *     catalogue): the ledgers' input logs, which an audit replay reads from their beginning (ADR 0005)
 * @param key what the key is, in words (it decides ordering)
 * @param valueRecord Avro record name of the value (see {@code io.tideline.events})
 * @param flow producer -> consumers, in words
 */
public record TopicSpec(
    String name, int partitions, boolean compacted, boolean retainedForever, String key,
    String valueRecord, String flow) {

  /**
   * The topic configs to create it with: the cleanup policy and, for a retained log, no time
   * retention ({@code retention.ms=-1}).
   */
  public java.util.Map<String, String> configs() {
    if (retainedForever) {
      return java.util.Map.of("cleanup.policy", "delete", "retention.ms", "-1");
    }
    return java.util.Map.of("cleanup.policy", compacted ? "compact" : "delete");
  }

  /** The dead-letter topic for records refused from this topic. */
  public String deadLetterTopic() {
    return name + ".dlq";
  }
}
