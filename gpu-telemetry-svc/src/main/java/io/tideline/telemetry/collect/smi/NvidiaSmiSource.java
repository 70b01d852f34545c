package io.tideline.telemetry.collect.smi;

import io.tideline.telemetry.collect.SampleSource;
import io.tideline.telemetry.collect.TargetReading;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs nvidia-smi on this node (a node agent without DCGM) through {@link ProcessBuilder} — no
 * shell, the command split on blanks — and parses its CSV. A missing binary, a non-zero exit or a
 * timeout is a failed read (the node's GPUs go STALE); bad lines are skipped and counted.
 */
public final class NvidiaSmiSource implements SampleSource {

  private final String cluster;
  private final String nodeId;
  private final List<String> command;
  private final Duration timeout;

  public NvidiaSmiSource(String cluster, String nodeId, String command, Duration timeout) {
    this.cluster = cluster;
    this.nodeId = nodeId;
    this.command = Arrays.asList(command.strip().split("\\s+"));
    this.timeout = timeout;
  }

  @Override
  public io.tideline.events.SampleSource kind() {
    return io.tideline.events.SampleSource.NVIDIA_SMI;
  }

  @Override
  public List<TargetReading> collect(Instant now) {
    String target = "nvidia-smi@" + nodeId;
    Process p;
    try {
      p = new ProcessBuilder(command).redirectErrorStream(false).start();
    } catch (IOException e) {
      return List.of(TargetReading.failed(target, "cannot run " + command.get(0) + ": " + e.getMessage()));
    }
    try {
      // Read both streams while the process runs, so a full pipe cannot block it.
      CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
      CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        return List.of(TargetReading.failed(target, command.get(0) + " timed out after " + timeout));
      }
      if (p.exitValue() != 0) {
        return List.of(TargetReading.failed(target, command.get(0) + " exited " + p.exitValue()
            + ": " + err.get().strip()));
      }
      NvidiaSmiCsv.Parsed parsed = NvidiaSmiCsv.parse(out.get(), cluster, nodeId, now);
      return List.of(TargetReading.ok(target, parsed.samples(), parsed.malformed().size()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      return List.of(TargetReading.failed(target, "interrupted"));
    } catch (Exception e) {
      return List.of(TargetReading.failed(target, e.toString()));
    }
  }

  private static String read(InputStream in) {
    try (in) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
