package io.tideline.core.quota.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A day's bill summed piece by piece on persistent maps is the bill the copying definition summed
 * (sorted maps merged with {@code Long::sum}), and equal — entries, order, hash, text — to the
 * bill restored from plain sorted maps, as the store restores it.
 */
class BillingDayTest {

  @Test
  void shouldSumPiecesAsTheCopyingDefinitionDid() {
    for (long seed = 1; seed <= 50; seed++) {
      Random rnd = new Random(seed);
      BillingDay day = BillingDay.empty("tenant-ads", "2026-11-02", "EUR");
      TreeMap<String, Long> bySlot = new TreeMap<>();
      TreeMap<String, Long> secBySlot = new TreeMap<>();
      TreeMap<String, Long> byJob = new TreeMap<>();
      long amount = 0;
      long seconds = 0;
      List<BillingDay> versions = new ArrayList<>();
      for (int piece = 1; piece <= 200; piece++) {
        String job = "job-" + rnd.nextInt(40);
        String slot = List.of("PEAK", "FLAT", "TROUGH", "DEEP_TROUGH").get(rnd.nextInt(4));
        long sec = rnd.nextInt(1_000_000);
        long amt = rnd.nextInt(5_000_000) - 1000;
        day = day.plus(job, slot, sec, amt);
        versions.add(day);
        bySlot.merge(slot, amt, Long::sum);
        secBySlot.merge(slot, sec, Long::sum);
        byJob.merge(job, amt, Long::sum);
        amount += amt;
        seconds += sec;

        BillingDay restored = new BillingDay("tenant-ads", "2026-11-02", "EUR", amount, seconds,
            new TreeMap<>(bySlot), new TreeMap<>(secBySlot), new TreeMap<>(byJob), piece);
        assertThat(day).as("seed %d piece %d", seed, piece).isEqualTo(restored)
            .hasSameHashCodeAs(restored).hasToString(restored.toString());
        assertThat(day.amountMicrosByJob().keySet()).containsExactlyElementsOf(byJob.keySet());
        assertThat(day.amountMicrosByJob()).hasToString(byJob.toString());
        assertThat(day.microGpuSecondsBySlot()).hasToString(secBySlot.toString());
      }
      // earlier bills are unchanged by later pieces (the maps are shared, never written)
      assertThat(versions.get(0).pieces()).isEqualTo(1);
      assertThat(versions.get(0).amountMicrosByJob()).hasSize(1);
    }
  }
}
