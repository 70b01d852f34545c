package io.tideline.forecaster.topology;

import io.tideline.platform.validation.Clip;
import io.tideline.platform.validation.EventValidator;
import java.time.Instant;
import java.util.List;

/**
 * The shared input check of a sample read as {@link SampleFacts}: field by field, the bounds the
 * platform's {@link EventValidator} holds every other consumer of {@code gpu.telemetry} to when it
 * checks the whole {@code GpuSample} (ADR 0012) — the identifiers' lengths, the GPU index and the
 * figures in range, the event time against the record's Kafka timestamp
 * ({@link EventValidator#timeProblem}). No rule of its own: each answer is the validator's.
 */
final class SampleCheck {

  private final EventValidator validator;

  SampleCheck(EventValidator validator) {
    this.validator = validator;
  }

  /** An identifier field of a sample and its value (null when absent). */
  private record Field(String name, String value) {}

  /**
   * Why the sample cannot be used, or {@code null}.
   *
   * @param timestamp the record's Kafka timestamp (negative when unknown)
   */
  String problem(SampleFacts s, long timestamp) {
    if (s.gpuId() == null || s.gpuId().isBlank()) {
      return "GpuSample: gpuId is required";
    }
    String subject = "GpuSample " + Clip.of(s.gpuId()) + ": ";
    List<Field> ids = List.of(new Field("gpuId", s.gpuId()), new Field("nodeId", s.nodeId()),
        new Field("jobId", s.jobId()), new Field("serviceId", s.serviceId()));
    for (Field f : ids) {
      String p = validator.stringProblem("GpuSample", f.name(), f.value());
      if (p != null) {
        return subject + p;
      }
    }
    SampleFacts.Rest rest = s.rest();
    if (rest.longestText() != null
        && rest.longestLength() > validator.maxLength(rest.longestText())) {
      return subject + rest.longestText() + " has " + rest.longestLength()
          + " characters, at most " + validator.maxLength(rest.longestText()) + " allowed";
    }
    String p = validator.numberProblem("GpuSample", "gpuIndex", rest.gpuIndex());
    for (int i = 0; p == null && i < rest.figures().length; i++) {
      p = validator.numberProblem("GpuSample", SampleFacts.Rest.FIGURES[i], rest.figures()[i]);
    }
    if (p == null) {
      String t = validator.timeProblem(Instant.ofEpochMilli(s.sampledAt()),
          timestamp >= 0 ? Instant.ofEpochMilli(timestamp) : null);
      p = t == null ? null : "sampledAt " + t;
    }
    return p == null ? null : subject + p;
  }

  /**
   * Why a node's scrape cannot be used, or {@code null}: the batch's own bounds (node, cluster,
   * event time, the GPU list's rules of {@link EventValidator#batchProblem}) and each GPU's as its
   * sample's (ADR 0040). One GPU out of bounds refuses the batch, as the validator does.
   */
  String problem(BatchFacts b, long timestamp) {
    String subject = "GpuSampleBatch " + Clip.of(b.nodeId()) + ": ";
    String p = b.nodeId() == null ? "nodeId is required"
        : validator.stringProblem("GpuSampleBatch", "nodeId", b.nodeId());
    if (p == null && b.clusterLength() > validator.maxLength("cluster")) {
      p = "cluster has " + b.clusterLength() + " characters, at most "
          + validator.maxLength("cluster") + " allowed";
    }
    if (p == null) {
      String t = validator.timeProblem(Instant.ofEpochMilli(b.sampledAt()),
          timestamp >= 0 ? Instant.ofEpochMilli(timestamp) : null);
      p = t == null ? null : "sampledAt " + t;
    }
    List<SampleFacts> gpus = b.gpus();
    if (p == null) {
      p = validator.batchProblem(gpus.size(), i -> gpus.get(i).gpuId(),
          i -> gpus.get(i).rest().gpuIndex());
    }
    for (int i = 0; p == null && i < gpus.size(); i++) {
      String g = problem(gpus.get(i), timestamp);
      p = g == null ? null : "gpus[" + i + "] " + g;
    }
    return p == null ? null : subject + p;
  }
}
