package io.tideline.notifier.compose;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/** Fills the configured quota-request URL template (P7) with URL-encoded tenant and job. */
public final class QuotaLink {

  private QuotaLink() {}

  /** {@code template} with {tenant} and {jobId} replaced. */
  public static String of(String template, String tenant, String jobId) {
    return template.replace("{tenant}", enc(tenant)).replace("{jobId}", enc(jobId));
  }

  private static String enc(String s) {
    return URLEncoder.encode(s == null ? "" : s, StandardCharsets.UTF_8);
  }
}
