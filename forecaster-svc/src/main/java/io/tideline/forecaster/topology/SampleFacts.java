package io.tideline.forecaster.topology;

/**
 * The six facts of a {@code GpuSample} that the forecaster uses, and what the shared input check
 * needs of every other field: the telemetry stage reads these straight off the wire
 * ({@link SampleFactsReader}) instead of building the whole generated record for every sample
 * (the hot path of the topology), and checks them with the platform's {@code EventValidator}
 * ({@link SampleCheck}) as every other consumer of {@code gpu.telemetry} checks the whole record
 * (ADR 0012).
 *
 * @param gpuId the GPU
 * @param nodeId its node (a node that leaves the inventory forgets its GPUs)
 * @param sampledAt event time of the sample, epoch millis
 * @param stale whether the scrape failed ({@code SampleState.STALE}): figures absent, not 0
 * @param jobId the Tideline job the GPU is attributed to, or null
 * @param serviceId the online service the GPU is attributed to, or null
 * @param rest the other fields, as far as the check needs them
 */
record SampleFacts(String gpuId, String nodeId, long sampledAt, boolean stale, String jobId,
    String serviceId, Rest rest) {

  /** Facts with nothing known of the other fields (tests). */
  SampleFacts(String gpuId, String nodeId, long sampledAt, boolean stale, String jobId,
      String serviceId) {
    this(gpuId, nodeId, sampledAt, stale, jobId, serviceId, Rest.NONE);
  }

  /**
   * The fields the forecaster does not use, reduced to what their bounds are about.
   *
   * @param gpuIndex the GPU's index on its node
   * @param figures the numeric figures by field name order: utilizationPct, memoryUsedMiB,
   *     memoryFreeMiB, powerWatts, temperatureC (null when absent)
   * @param longestText the other string field with the most characters (cluster, model,
   *     namespace, pod, container), or null
   * @param longestLength its length in characters
   */
  record Rest(int gpuIndex, Double[] figures, String longestText, int longestLength) {
    /** The numeric figures of a sample, in the order of {@link #figures}. */
    static final String[] FIGURES = {"utilizationPct", "memoryUsedMiB", "memoryFreeMiB",
        "powerWatts", "temperatureC"};

    static final Rest NONE = new Rest(0, new Double[FIGURES.length], null, 0);

    @Override
    public boolean equals(Object o) {
      return o instanceof Rest r && r.gpuIndex == gpuIndex
          && java.util.Arrays.equals(r.figures, figures)
          && java.util.Objects.equals(r.longestText, longestText)
          && r.longestLength == longestLength;
    }

    @Override
    public int hashCode() {
      return java.util.Objects.hash(gpuIndex, java.util.Arrays.hashCode(figures), longestText,
          longestLength);
    }

    @Override
    public String toString() {
      return "Rest[gpuIndex=" + gpuIndex + ", figures=" + java.util.Arrays.toString(figures)
          + ", longest=" + longestText + " (" + longestLength + ")]";
    }
  }
}
