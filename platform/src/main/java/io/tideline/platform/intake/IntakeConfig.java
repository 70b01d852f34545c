package io.tideline.platform.intake;

import io.smallrye.config.ConfigMapping;
import io.tideline.core.admission.SubmissionLimits;
import java.util.Optional;

/**
 * Bounds on submissions ({@code tideline.intake.*}); unset values take the documented defaults of
 * {@link SubmissionLimits#DEFAULTS} (4,096 GPUs per job, 0.05 of a GPU at least, gangs up to 4,096).
 */
@ConfigMapping(prefix = "tideline.intake")
public interface IntakeConfig {

  /** Largest gang the fleet accepts, in GPUs. */
  Optional<Integer> maxGpusPerJob();

  /** Smallest fraction of one GPU an instance may ask for. */
  Optional<Double> minGpuShare();

  /** Largest number of workers in one gang. */
  Optional<Integer> maxGangSize();

  /** The limits in force. */
  default SubmissionLimits limits() {
    SubmissionLimits d = SubmissionLimits.DEFAULTS;
    return new SubmissionLimits(maxGpusPerJob().orElse(d.maxGpusPerJob()),
        minGpuShare().orElse(d.minGpuShare()), maxGangSize().orElse(d.maxGangSize()));
  }
}
