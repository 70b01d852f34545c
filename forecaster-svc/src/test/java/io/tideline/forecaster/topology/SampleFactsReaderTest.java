package io.tideline.forecaster.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.GpuSample;
import io.tideline.events.SampleSource;
import io.tideline.events.SampleState;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.junit.jupiter.api.Test;

/** The projection reader against the full Avro encoding of a {@code GpuSample}. */
class SampleFactsReaderTest {

  private static final Instant AT = Instant.parse("2026-11-10T09:00:30Z");

  @Test
  void shouldReadTheSixFactsAndSkipEveryOtherFieldWhateverItHolds() throws IOException {
    // Every optional field set (strings, doubles), so each skipper is exercised.
    GpuSample full = GpuSample.newBuilder().setGpuId("gpu-7").setCluster("default")
        .setNodeId("node-1").setGpuIndex(7).setModel("NVIDIA H100 80GB HBM3").setSampledAt(AT)
        .setState(SampleState.OK).setUtilizationPct(81.5).setMemoryUsedMiB(1024.0)
        .setMemoryFreeMiB(80_000.0).setPowerWatts(350.0).setTemperatureC(61.0)
        .setNamespace("chat").setPod("chat-0").setContainer("server").setJobId("chat-0-job")
        .setServiceId("chat").setSource(SampleSource.DCGM).build();

    SampleFacts facts = (SampleFacts) read(full);
    assertThat(facts).usingRecursiveComparison().ignoringFields("rest").isEqualTo(
        new SampleFacts("gpu-7", "node-1", AT.toEpochMilli(), false, "chat-0-job", "chat"));
    // what the shared input check needs of the other fields, read on the way
    assertThat(facts.rest()).isEqualTo(new SampleFacts.Rest(7,
        new Double[] {81.5, 1024.0, 80_000.0, 350.0, 61.0}, "model", 21));
  }

  @Test
  void shouldReadAStaleSampleWithoutOwnerAsStaleWithNulls() throws IOException {
    GpuSample stale = GpuSample.newBuilder().setGpuId("gpu-8").setCluster("default")
        .setNodeId("node-1").setGpuIndex(0).setSampledAt(AT).setState(SampleState.STALE)
        .setSource(SampleSource.SIMULATOR).build();

    assertThat(read(stale)).usingRecursiveComparison().ignoringFields("rest").isEqualTo(
        new SampleFacts("gpu-8", "node-1", AT.toEpochMilli(), true, null, null));
  }

  private static Object read(GpuSample sample) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BinaryEncoder out = EncoderFactory.get().binaryEncoder(bytes, null);
    new SpecificDatumWriter<GpuSample>(GpuSample.getClassSchema()).write(sample, out);
    out.flush();
    return new SampleFactsReader(GpuSample.getClassSchema())
        .read(null, DecoderFactory.get().binaryDecoder(bytes.toByteArray(), null));
  }
}
