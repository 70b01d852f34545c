package io.tideline.console;

import io.quarkus.qute.TemplateExtension;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** Number and time formats of the pages ({@code {x.fmt}}, {@code {t.hm}}). */
@TemplateExtension
final class Formats {

  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")
      .withZone(ZoneOffset.UTC);

  private Formats() {}

  /** Two decimals; infinity as ∞. */
  static String fmt(Double value) {
    if (value == null) {
      return "–";
    }
    if (value.isInfinite()) {
      return "∞";
    }
    return String.format(Locale.ROOT, "%.2f", value);
  }

  /** UTC, to the minute; "–" when unknown. */
  static String hm(Instant at) {
    return at == null ? "–" : TIME.format(at);
  }
}
