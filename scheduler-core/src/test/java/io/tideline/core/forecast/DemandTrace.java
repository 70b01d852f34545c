package io.tideline.core.forecast;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The shipped public demand trace ({@code data/inference-demand-10min.csv}, alibaba/ServeGen,
 * Apache-2.0; see the README beside it): 14 days of request rate at 10-minute steps.
 */
final class DemandTrace {

  static final String RESOURCE = "/data/inference-demand-10min.csv";
  static final Duration STEP = Duration.ofMinutes(10);

  final long[] offsets;
  final double[] rps;

  private DemandTrace(long[] offsets, double[] rps) {
    this.offsets = offsets;
    this.rps = rps;
  }

  static DemandTrace load() {
    try (InputStream in = DemandTrace.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource " + RESOURCE);
      }
      BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      String header = reader.readLine();
      if (!header.startsWith("offset_s,request_rate_rps")) {
        throw new IllegalStateException("unexpected header " + header);
      }
      List<String[]> rows = new ArrayList<>();
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        if (!line.isBlank()) {
          rows.add(line.split(","));
        }
      }
      long[] offsets = new long[rows.size()];
      double[] rps = new double[rows.size()];
      for (int i = 0; i < rows.size(); i++) {
        offsets[i] = Long.parseLong(rows.get(i)[0]);
        rps[i] = Double.parseDouble(rows.get(i)[1]);
      }
      return new DemandTrace(offsets, rps);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  int size() {
    return offsets.length;
  }
}
