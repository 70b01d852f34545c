package io.tideline.core.quota.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The inbox's store ids are what they were: the sequence, zero-padded to 20 digits. */
class InboxIdTest {

  @Test
  void shouldPadEverySequenceAsStringFormatDid() {
    Random rnd = new Random(7);
    long[] edges = {0, 1, 9, 10, 99, 100, 12_345, Integer.MAX_VALUE, Long.MAX_VALUE - 1,
        Long.MAX_VALUE, -1, Long.MIN_VALUE};
    for (long seq : edges) {
      assertThat(QuotaKernelState.inboxId(seq)).as("%d", seq)
          .isEqualTo(String.format(Locale.ROOT, "%020d", seq));
    }
    for (int i = 0; i < 10_000; i++) {
      long seq = rnd.nextLong() >>> rnd.nextInt(64);
      String id = QuotaKernelState.inboxId(seq);
      assertThat(id).as("%d", seq).isEqualTo(String.format(Locale.ROOT, "%020d", seq));
      assertThat(QuotaKernelState.inboxSeq(id)).isEqualTo(seq);
    }
  }
}
