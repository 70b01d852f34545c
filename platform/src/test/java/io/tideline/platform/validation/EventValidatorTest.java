package io.tideline.platform.validation;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.events.GpuInfo;
import io.tideline.events.GpuReading;
import io.tideline.events.GpuSample;
import io.tideline.events.GpuSampleBatch;
import io.tideline.events.Holiday;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LifecycleType;
import io.tideline.events.NodeInventory;
import io.tideline.events.NotifyPreference;
import io.tideline.events.ResourceQuantities;
import io.tideline.events.SampleSource;
import io.tideline.events.SampleState;
import io.tideline.testkit.ClusterNodes;
import io.tideline.testkit.JobSubmissions;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The shared input check, one scenario per hostile record of issue #16's catalogue: each is
 * refused with a reason naming the field, and the well-formed record next to it passes.
 */
class EventValidatorTest {

  private static final Instant NOW = Instant.parse("2026-11-02T09:00:00Z");
  private static final long TS = NOW.toEpochMilli();
  private final EventValidator validator = new EventValidator(InputBounds.DEFAULTS);

  private String problem(String topic, String key, Object event) {
    return validator.problem(topic, key == null ? null : key.getBytes(StandardCharsets.UTF_8),
        event, TS);
  }

  // ---- jobs.submitted ---------------------------------------------------------------------

  @Test
  void shouldAcceptAWellFormedSubmission() {
    assertThat(problem("jobs.submitted", "j1", JobSubmissions.training("j1").at(NOW).build()))
        .isNull();
  }

  @Test
  void shouldRefuseAJobIdOfFourHundredThousandCharactersNamingItsLengthNotItsText() {
    String id = "x".repeat(400_000);
    String p = problem("jobs.submitted", null, JobSubmissions.training(id).at(NOW).build());
    assertThat(p).contains("jobId has 400000 characters, at most 253").hasSizeLessThan(400);
  }

  @Test
  void shouldRefuseAJobIdOfTwoHundredFiftyFourCharactersAndAcceptTwoHundredFiftyThree() {
    assertThat(problem("jobs.submitted", null,
        JobSubmissions.training("a".repeat(253)).at(NOW).build())).isNull();
    assertThat(problem("jobs.submitted", null,
        JobSubmissions.training("a".repeat(254)).at(NOW).build())).contains("jobId has 254");
  }

  @Test
  void shouldRefuseSubmissionTimesInTheYear2300AtEpochZeroAndInYearOne() {
    for (String t : List.of("2300-01-01T00:00:00Z", "1970-01-01T00:00:00Z",
        "0001-01-01T00:00:00Z", "1969-12-31T23:59:59Z")) {
      assertThat(problem("jobs.submitted", "j",
          JobSubmissions.training("j").at(Instant.parse(t)).build()))
          .as(t).contains("submittedAt");
    }
  }

  @Test
  void shouldAcceptASubmissionStampedAFewMinutesAheadOfItsRecordAndRefuseOneAnHourAhead() {
    assertThat(problem("jobs.submitted", "j",
        JobSubmissions.training("j").at(NOW.plusSeconds(300)).build())).isNull();
    assertThat(problem("jobs.submitted", "j",
        JobSubmissions.training("j").at(NOW.plusSeconds(3600)).build()))
        .contains("submittedAt").contains("max-lead");
  }

  @Test
  void shouldRefuseNaNStateSizeAndCacheSize() {
    JobSubmitted nanState = JobSubmissions.training("j").at(NOW).build();
    nanState.getCheckpoint().setStateSizeGb(Double.NaN);
    assertThat(problem("jobs.submitted", "j", nanState)).contains("checkpoint.stateSizeGb")
        .contains("finite");
    JobSubmitted nanCache = JobSubmissions.training("j").at(NOW).build();
    nanCache.setDataCacheGb(Double.POSITIVE_INFINITY);
    assertThat(problem("jobs.submitted", "j", nanCache)).contains("dataCacheGb");
  }

  @Test
  void shouldRefuseANaNShare() {
    JobSubmitted job = JobSubmissions.onlineInference("i", "chat", 0.5).at(NOW).build();
    job.getResources().setGpuShare(Double.NaN);
    assertThat(problem("jobs.submitted", "i", job)).contains("gpuShare");
  }

  @Test
  void shouldRefuseAZeroGpuJobTheSameWayForEveryConsumer() {
    JobSubmitted job = JobSubmissions.training("z").at(NOW).build();
    job.getResources().setGpuCount(0);
    assertThat(problem("jobs.submitted", "z", job)).contains("resources.gpuCount");
  }

  @Test
  void shouldAcceptCpuMemoryAndAnRdmaNicPerWorkerAndRefuseNegativeQuantities() {
    JobSubmitted job = JobSubmissions.training("r").at(NOW).build();
    job.getResources().setPerWorker(new ResourceQuantities(8_000L, 64L << 30,
        Map.of("rdma/hca", 1L)));
    assertThat(problem("jobs.submitted", "r", job)).isNull();

    job.getResources().getPerWorker().setCpuMillis(-1L);
    assertThat(problem("jobs.submitted", "r", job))
        .contains("perWorker.cpuMillis").contains("must be in [0,");
    job.getResources().getPerWorker().setCpuMillis(8_000L);
    job.getResources().getPerWorker().setExtended(Map.of("rdma/hca", -2L));
    assertThat(problem("jobs.submitted", "r", job)).contains("rdma/hca").contains("got -2");
  }

  // ---- cluster.inventory ------------------------------------------------------------------

  @Test
  void shouldRefuseANodeDeclaringNegativeAllocatableMemory() {
    NodeInventory n = node();
    n.setAllocatable(new ResourceQuantities(96_000L, -1L, Map.of()));
    assertThat(problem("cluster.inventory", "n01", n)).contains("allocatable.memoryBytes");
  }

  private static NodeInventory node() {
    return ClusterNodes.joined("default", 1, NOW).get(0);
  }

  @Test
  void shouldAcceptANodeOfEightGpus() {
    assertThat(problem("cluster.inventory", "n01", node())).isNull();
  }

  @Test
  void shouldRefuseNodesClaimingMoreGpusThanANodeHolds() {
    for (int gpus : new int[] {2_147_483_647, 100_000, 65, 0, -1}) {
      NodeInventory n = node();
      n.setGpuCount(gpus);
      assertThat(problem("cluster.inventory", "n01", n)).as("%d GPUs", gpus)
          .contains("gpuCount must be in [1, 64]");
    }
  }

  @Test
  void shouldHonourAConfiguredMaximumOfGpusPerNode() {
    NodeInventory n = node();
    n.setGpuCount(128);
    assertThat(new EventValidator(InputBounds.DEFAULTS.withMaxGpusPerNode(128))
        .problem("cluster.inventory", null, n, TS)).isNull();
  }

  @Test
  void shouldRefuseAGpuListThatDisagreesWithGpuCount() {
    NodeInventory n = node();
    List<GpuInfo> gpus = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      gpus.add(GpuInfo.newBuilder().setIndex(i).build());
    }
    n.setGpus(gpus);
    assertThat(problem("cluster.inventory", "n01", n)).contains("gpus lists 4 GPUs")
        .contains("gpuCount is 8");
  }

  @Test
  void shouldRefuseNegativeGpuMemory() {
    NodeInventory n = node();
    n.setGpuMemoryMiB(-1);
    assertThat(problem("cluster.inventory", "n01", n)).contains("gpuMemoryMiB");
  }

  @Test
  void shouldRefuseAnInventoryTombstoneBecauseANodeLeavesWithALeftEvent() {
    assertThat(validator.tombstoneProblem("cluster.inventory", "n01".getBytes()))
        .contains("LEFT");
    assertThat(validator.tombstoneProblem("notify.directory", "carol".getBytes())).isNull();
  }

  @Test
  void shouldReadATombstoneOfTheExecutorsOpenJobsAsTheJobClosedOnlyWithItsKey() {
    assertThat(validator.tombstoneProblem("executor.jobs", "ml/train".getBytes())).isNull();
    assertThat(validator.tombstoneProblem("executor.jobs", null)).contains("without a key");
  }

  // ---- jobs.lifecycle, gpu.telemetry, cluster.clock --------------------------------------

  @Test
  void shouldRefuseANegativeLifecycleTimeAndANaNProgress() {
    JobLifecycle l = JobLifecycle.newBuilder().setJobId("j").setCluster("default")
        .setType(LifecycleType.PROGRESS).setOccurredAt(Instant.ofEpochMilli(-5)).build();
    assertThat(problem("jobs.lifecycle", "j", l)).contains("occurredAt");
    l.setOccurredAt(NOW);
    l.setProgress(Double.NaN);
    assertThat(problem("jobs.lifecycle", "j", l)).contains("progress");
    l.setProgress(0.5);
    assertThat(problem("jobs.lifecycle", "j", l)).isNull();
  }

  @Test
  void shouldRefuseAUtilisationAboveAHundredPercent() {
    GpuSample s = GpuSample.newBuilder().setGpuId("g").setCluster("default").setNodeId("n")
        .setGpuIndex(0).setSampledAt(NOW).setState(SampleState.OK).setUtilizationPct(150.0)
        .setSource(SampleSource.DCGM).build();
    assertThat(problem("gpu.telemetry", "g", s)).contains("utilizationPct");
  }

  // ---- gpu.telemetry.batches (ADR 0040) ---------------------------------------------------

  /** A node's scrape of {@code gpus} GPUs, all OK, indexes 0.., ids n1/0, n1/1, … */
  private static GpuSampleBatch scrape(int gpus) {
    List<GpuReading> readings = new ArrayList<>();
    for (int g = 0; g < gpus; g++) {
      readings.add(GpuReading.newBuilder().setGpuId("n1/" + g).setGpuIndex(g).setModel("H100")
          .setState(SampleState.OK).setUtilizationPct(50.0).build());
    }
    return GpuSampleBatch.newBuilder().setCluster("default").setNodeId("n1").setSampledAt(NOW)
        .setSource(SampleSource.DCGM).setGpus(readings).build();
  }

  @Test
  void shouldAcceptANodesScrapeAsABatch() {
    assertThat(problem("gpu.telemetry.batches", "n1", scrape(8))).isNull();
  }

  @Test
  void shouldRefuseABatchListingAGpuTwice() {
    GpuSampleBatch twice = scrape(4);
    twice.getGpus().get(3).setGpuId("n1/1");
    assertThat(problem("gpu.telemetry.batches", "n1", twice)).contains("n1/1 twice");
    GpuSampleBatch index = scrape(4);
    index.getGpus().get(3).setGpuIndex(0);
    assertThat(problem("gpu.telemetry.batches", "n1", index)).contains("index 0 twice");
  }

  @Test
  void shouldRefuseABatchLargerThanANodeOrEmpty() {
    assertThat(problem("gpu.telemetry.batches", "n1", scrape(65)))
        .contains("65 GPUs, a node has at most 64");
    assertThat(problem("gpu.telemetry.batches", "n1", scrape(0))).contains("gpus is empty");
  }

  @Test
  void shouldRefuseABatchWithOneGpuOutOfBounds() {
    GpuSampleBatch hot = scrape(8);
    hot.getGpus().get(5).setUtilizationPct(150.0);
    assertThat(problem("gpu.telemetry.batches", "n1", hot)).contains("gpus[5].utilizationPct");
    GpuSampleBatch index = scrape(8);
    index.getGpus().get(2).setGpuIndex(1000);
    assertThat(problem("gpu.telemetry.batches", "n1", index)).contains("gpuIndex");
    GpuSampleBatch blank = scrape(8);
    blank.getGpus().get(1).setGpuId(" ");
    assertThat(problem("gpu.telemetry.batches", "n1", blank)).contains("gpuId is required");
    GpuSampleBatch late = scrape(8);
    late.setSampledAt(Instant.parse("2300-01-01T00:00:00Z"));
    assertThat(problem("gpu.telemetry.batches", "n1", late)).contains("sampledAt");
    GpuSampleBatch noNode = scrape(8);
    noNode.setNodeId("");
    assertThat(problem("gpu.telemetry.batches", "n1", noNode)).contains("nodeId is required");
  }

  @Test
  void shouldRefuseAClockTickFromTheYear2300() {
    ClockTick t = ClockTick.newBuilder().setCluster("default")
        .setTime(Instant.parse("2300-01-01T00:00:00Z")).setSequence(1).setIntervalMillis(60_000)
        .setSource(ClockSource.WALL).build();
    assertThat(problem("cluster.clock", "default", t)).contains("time").contains("max-lead");
  }

  // ---- forecast.holidays ------------------------------------------------------------------

  @Test
  void shouldRefuseAHolidayWhoseKeyIsNotItsDate() {
    Holiday h = Holiday.newBuilder().setDate("2026-12-25").setName("Christmas")
        .setDeclaredAt(NOW).build();
    assertThat(problem("forecast.holidays", "2026-12-25", h)).isNull();
    assertThat(problem("forecast.holidays", "2026-12-26", h)).contains("differs from its key");
    assertThat(problem("forecast.holidays", "tomorrow", h)).contains("not an ISO date");
  }

  // ---- notify.directory -------------------------------------------------------------------

  private static NotifyPreference entry() {
    return NotifyPreference.newBuilder().setUserId("carol").setChannels(List.of("EMAIL", "SLACK"))
        .setEmail("carol@example.com").setSlackWebhookUrl("https://hooks.example.com/T1/B1")
        .setLocale("en").setZoneId("Europe/Paris").setQuietStart("22:00").setQuietEnd("07:00")
        .setDigest(true).setUpdatedAt(NOW).build();
  }

  @Test
  void shouldAcceptAWellFormedDirectoryEntry() {
    assertThat(problem("notify.directory", "carol", entry())).isNull();
  }

  @Test
  void shouldRefuseQuietHoursAt25Colon99() {
    NotifyPreference p = entry();
    p.setQuietStart("25:99");
    assertThat(problem("notify.directory", "carol", p)).contains("quietStart '25:99'");
  }

  @Test
  void shouldRefuseChannelFaxAndZoneMarsOlympus() {
    NotifyPreference fax = entry();
    fax.setChannels(List.of("FAX"));
    assertThat(problem("notify.directory", "carol", fax)).contains("unknown channel 'FAX'");
    NotifyPreference mars = entry();
    mars.setZoneId("Mars/Olympus");
    assertThat(problem("notify.directory", "carol", mars)).contains("zoneId 'Mars/Olympus'");
  }

  @Test
  void shouldRefuseWebhooksOutsideTheAllowedSchemes() {
    for (String url : List.of("file:///etc/passwd", "ftp://example.com/x", "gopher://x",
        "http://hooks.example.com/x", "https://user:secret@hooks.example.com/x", "not a url")) {
      NotifyPreference p = entry();
      p.setSlackWebhookUrl(url);
      assertThat(problem("notify.directory", "carol", p)).as(url).contains("slackWebhookUrl");
    }
    NotifyPreference local = entry();
    local.setSlackWebhookUrl("http://127.0.0.1:8080/hook");
    assertThat(new EventValidator(InputBounds.DEFAULTS.withWebhookSchemes(List.of("https",
        "http")).withWebhookInternalHosts(List.of("127.0.0.1")))
        .problem("notify.directory", "carol".getBytes(), local, TS)).isNull();
    assertThat(new EventValidator(InputBounds.DEFAULTS.withWebhookSchemes(List.of("https",
        "http"))).problem("notify.directory", "carol".getBytes(), local, TS))
        .contains("slackWebhookUrl").contains("tideline.intake.webhook-internal-hosts");
  }

  @Test
  void shouldRefuseADirectoryEntryFiledUnderAnotherUsersKey() {
    assertThat(problem("notify.directory", "mallory", entry())).contains("not the entry's userId");
  }

  @Test
  void shouldBoundMapsAndListsByTheirSize() {
    NodeInventory n = node();
    java.util.Map<String, String> labels = new java.util.HashMap<>();
    for (int i = 0; i < 10_001; i++) {
      labels.put("k" + i, "v");
    }
    n.setLabels(labels);
    assertThat(problem("cluster.inventory", "n01", n)).contains("labels has 10001 entries");
    n.setLabels(Map.of("k".repeat(20_000), "v"));
    assertThat(problem("cluster.inventory", "n01", n)).contains("labels has a key of 20000");
  }

  @Test
  void shouldRefuseALedgerBindingThatPutsNoPodOnANodeAndAcceptOneWithPods() {
    io.tideline.events.LedgerChange bad = io.tideline.events.LedgerChange.newBuilder()
        .setCluster("c1").setVersion(3).setAt(NOW).setChange(new io.tideline.events.LedgerBound(
            "etl", List.of(), java.util.Map.of("n1", 3, "n2", 0))).build();
    io.tideline.events.LedgerChange good = io.tideline.events.LedgerChange.newBuilder(bad)
        .setChange(new io.tideline.events.LedgerBound("etl", List.of(), java.util.Map.of("n1", 3)))
        .build();

    assertThat(problem("placement.ledger", "c1", bad))
        .contains("workers of etl: node 'n2' must be named and hold at least one pod, got 0");
    assertThat(problem("placement.ledger", "c1", good)).isNull();
  }
}
