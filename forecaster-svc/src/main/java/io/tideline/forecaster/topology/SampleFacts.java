package io.tideline.forecaster.topology;

/**
 * The six facts of a {@code GpuSample} that the forecaster uses, and nothing else: the
 * telemetry stage reads these straight off the wire ({@link SampleFactsReader}) instead of
 * building the whole generated record for every sample (the hot path of the topology).
 *
 * @param gpuId the GPU
 * @param nodeId its node (a node that leaves the inventory forgets its GPUs)
 * @param sampledAt event time of the sample, epoch millis
 * @param stale whether the scrape failed ({@code SampleState.STALE}): figures absent, not 0
 * @param jobId the Tideline job the GPU is attributed to, or null
 * @param serviceId the online service the GPU is attributed to, or null
 */
record SampleFacts(String gpuId, String nodeId, long sampledAt, boolean stale, String jobId,
    String serviceId) {}
