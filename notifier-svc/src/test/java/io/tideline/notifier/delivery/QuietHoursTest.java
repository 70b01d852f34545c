package io.tideline.notifier.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

/** Quiet hours hold a notice until they end, in the user's own zone, by event time. */
class QuietHoursTest {

  static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai"); // UTC+8, no DST
  static final QuietHours NIGHT = QuietHours.parse("22:00", "07:00", SHANGHAI);

  @Test
  void shouldHoldALateEveningNoticeUntilSevenNextMorningLocalTime() {
    Instant at2300Local = Instant.parse("2026-11-02T15:00:00Z");
    assertThat(NIGHT.releaseAt(at2300Local)).isEqualTo(Instant.parse("2026-11-02T23:00:00Z"));
  }

  @Test
  void shouldHoldAnEarlyMorningNoticeUntilSevenTheSameDay() {
    Instant at0300Local = Instant.parse("2026-11-02T19:00:00Z"); // 03:00 on the 3rd
    assertThat(NIGHT.releaseAt(at0300Local)).isEqualTo(Instant.parse("2026-11-02T23:00:00Z"));
  }

  @Test
  void shouldSendDaytimeNoticesAtOnceAndTreatTheEndAsExclusive() {
    Instant noon = Instant.parse("2026-11-02T04:00:00Z");
    assertThat(NIGHT.releaseAt(noon)).isEqualTo(noon);
    Instant seven = Instant.parse("2026-11-02T23:00:00Z");
    assertThat(NIGHT.isQuiet(seven)).isFalse();
    assertThat(NIGHT.isQuiet(seven.minusSeconds(1))).isTrue();
  }

  @Test
  void shouldHandleASameDayWindowAndNoWindow() {
    QuietHours lunch = QuietHours.parse("12:00", "13:00", ZoneId.of("UTC"));
    assertThat(lunch.releaseAt(Instant.parse("2026-11-02T12:30:00Z")))
        .isEqualTo(Instant.parse("2026-11-02T13:00:00Z"));
    Instant t = Instant.parse("2026-11-02T12:30:00Z");
    assertThat(QuietHours.parse(null, null, ZoneId.of("UTC")).releaseAt(t)).isEqualTo(t);
  }

  @Test
  void shouldEndAtSevenLocalAcrossADaylightSavingChange() {
    // Berlin leaves summer time on 2026-10-25 at 03:00 local: the night is 25 hours long.
    QuietHours berlin = QuietHours.parse("22:00", "07:00", ZoneId.of("Europe/Berlin"));
    Instant at2300Summer = Instant.parse("2026-10-24T21:00:00Z"); // 23:00 CEST
    assertThat(berlin.releaseAt(at2300Summer)).isEqualTo(Instant.parse("2026-10-25T06:00:00Z"));
  }
}
