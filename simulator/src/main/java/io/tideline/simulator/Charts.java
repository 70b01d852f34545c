package io.tideline.simulator;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.DatasetRenderingOrder;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.StackedXYAreaRenderer2;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.DefaultTableXYDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Renders the report's PNG charts from the runs' {@link TimelineSample}s with JFreeChart, headless:
 * (1) the tide — online demand, online in use, forecast reservations held idle and the training
 * fill over a week; (2) forecast vs actual online demand; (3) allocation rate and (4)
 * fragmentation over time, every policy; (5) queue length, every policy. The week shown is the
 * last one of the run (the forecaster's history starts empty, so the first days have no
 * reservations to show). x axes are simulated days since the start of the run.
 */
public final class Charts {

  /** Chart file names, in the order the HTML report shows them, with their captions. */
  public static final Map<String, String> CAPTIONS;

  static {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("tide.png", "The tide (Tideline): online demand, GPUs online instances hold, GPUs "
        + "forecast reservations hold idle ahead of a rise, and the training/batch fill");
    c.put("forecast.png", "Forecast vs actual (Tideline): the F2 forecast (p90, summed over "
        + "services) of each slot against the online demand");
    c.put("allocation.png", "GPU allocation rate per policy (hourly mean)");
    c.put("fragmentation.png", "Fragmentation index per policy: stranded idle GPUs ÷ idle GPUs "
        + "for whole-node demand (hourly mean)");
    c.put("queue.png", "Offline jobs waiting per policy");
    CAPTIONS = java.util.Collections.unmodifiableMap(c);
  }

  private static final int WIDTH = 1000;
  private static final int HEIGHT = 360;
  private static final Duration WEEK = Duration.ofDays(7);
  private static final Duration HOUR = Duration.ofHours(1);
  private static final double SECONDS_PER_DAY = 86_400.0;

  private Charts() {}

  /**
   * Writes every chart of {@link #CAPTIONS} into {@code dir}. {@code results} must hold Tideline's
   * run first (the tide and the forecast are drawn from it).
   *
   * @return the files written, in {@link #CAPTIONS} order
   */
  public static List<Path> write(Path dir, List<SimResult> results, Instant start)
      throws IOException {
    System.setProperty("java.awt.headless", "true");
    Files.createDirectories(dir);
    SimResult tideline = results.get(0);
    List<TimelineSample> week = lastWeek(tideline.timeline());
    Instant from = week.isEmpty() ? start : week.get(0).at();
    List<Path> out = new ArrayList<>();
    out.add(save(dir, "tide.png", tide(week, start, tideline.policy())));
    out.add(save(dir, "forecast.png", forecast(week, start, tideline.policy())));
    out.add(save(dir, "allocation.png", perPolicy(results, start, from,
        "GPU allocation rate", "allocated (%)", s -> 100 * s.allocation(), true)));
    out.add(save(dir, "fragmentation.png", perPolicy(results, start, from,
        "Fragmentation", "stranded idle ÷ idle (%)", s -> 100 * s.fragmentation(), true)));
    out.add(save(dir, "queue.png", perPolicy(results, start, from,
        "Queue length", "offline jobs waiting", s -> s.queuedJobs(), false)));
    return out;
  }

  private static List<TimelineSample> lastWeek(List<TimelineSample> all) {
    if (all.isEmpty()) {
      return all;
    }
    Instant cut = all.get(all.size() - 1).at().minus(WEEK);
    List<TimelineSample> out = new ArrayList<>();
    for (TimelineSample s : all) {
      if (s.at().isAfter(cut)) {
        out.add(s);
      }
    }
    return out;
  }

  private static double day(Instant start, Instant at) {
    return Duration.between(start, at).toSeconds() / SECONDS_PER_DAY;
  }

  private static JFreeChart tide(List<TimelineSample> week, Instant start, String policy) {
    // 1. stacked areas: online in use, reserved idle, training fill
    DefaultTableXYDataset areas = new DefaultTableXYDataset();
    XYSeries online = new XYSeries("online instances", false, false);
    XYSeries reserved = new XYSeries("reserved ahead (idle)", false, false);
    XYSeries training = new XYSeries("training / batch fill", false, false);
    XYSeries demand = new XYSeries("online demand", false, true);
    for (TimelineSample s : week) {
      double x = day(start, s.at());
      online.add(x, s.onlineGpus(), false);
      reserved.add(x, s.reservedIdleGpus(), false);
      training.add(x, s.offlineGpus(), false);
      demand.add(x, s.onlineDemandGpus(), false);
    }
    areas.addSeries(online);
    areas.addSeries(reserved);
    areas.addSeries(training);
    JFreeChart chart = ChartFactory.createStackedXYAreaChart("The tide (" + policy + ")",
        "simulated day", "GPUs", areas, PlotOrientation.VERTICAL, true, false, false);
    XYPlot plot = chart.getXYPlot();
    StackedXYAreaRenderer2 r = new StackedXYAreaRenderer2();
    r.setSeriesPaint(0, new Color(0x1f, 0x77, 0xb4));
    r.setSeriesPaint(1, new Color(0xff, 0x7f, 0x0e));
    r.setSeriesPaint(2, new Color(0x2c, 0xa0, 0x2c));
    plot.setRenderer(0, r);
    // 2. the demand as a line over the areas
    XYLineAndShapeRenderer line = new XYLineAndShapeRenderer(true, false);
    line.setSeriesPaint(0, Color.BLACK);
    line.setSeriesStroke(0, new BasicStroke(1.2f));
    plot.setRenderer(1, line); // before its dataset: the stacked renderer cannot range a line
    plot.setDataset(1, new XYSeriesCollection(demand));
    plot.setDatasetRenderingOrder(DatasetRenderingOrder.FORWARD); // the line on top
    style(chart);
    return chart;
  }

  private static JFreeChart forecast(List<TimelineSample> week, Instant start, String policy) {
    XYSeries actual = new XYSeries("online demand (actual)", false, true);
    XYSeries forecast = new XYSeries("forecast p90 of the slot", false, true);
    for (TimelineSample s : week) {
      double x = day(start, s.at());
      actual.add(x, s.onlineDemandGpus(), false);
      if (!Double.isNaN(s.forecastGpus())) {
        forecast.add(x, s.forecastGpus(), false);
      }
    }
    XYSeriesCollection data = new XYSeriesCollection();
    data.addSeries(actual);
    data.addSeries(forecast);
    JFreeChart chart = ChartFactory.createXYLineChart("Forecast vs actual (" + policy + ")",
        "simulated day", "GPUs", data, PlotOrientation.VERTICAL, true, false, false);
    style(chart);
    return chart;
  }

  private static JFreeChart perPolicy(List<SimResult> results, Instant start, Instant from,
      String title, String yLabel, ToDoubleFunction<TimelineSample> value, boolean hourly) {
    XYSeriesCollection data = new XYSeriesCollection();
    for (SimResult r : results) {
      XYSeries series = new XYSeries(r.policy(), false, true);
      Instant bucket = null;
      double sum = 0;
      int n = 0;
      for (TimelineSample s : r.timeline()) {
        if (s.at().isBefore(from)) {
          continue;
        }
        if (!hourly) {
          series.add(day(start, s.at()), value.applyAsDouble(s), false);
          continue;
        }
        // hourly means: the 5-minute samples are too jagged to compare five lines
        if (bucket != null && !s.at().isBefore(bucket.plus(HOUR))) {
          series.add(day(start, bucket), sum / n, false);
          sum = 0;
          n = 0;
          bucket = null;
        }
        if (bucket == null) {
          bucket = s.at();
        }
        sum += value.applyAsDouble(s);
        n++;
      }
      if (bucket != null && n > 0) {
        series.add(day(start, bucket), sum / n, false);
      }
      data.addSeries(series);
    }
    JFreeChart chart = ChartFactory.createXYLineChart(title, "simulated day", yLabel, data,
        PlotOrientation.VERTICAL, true, false, false);
    style(chart);
    chart.setAntiAlias(false); // five jagged lines: anti-aliasing triples the PNG for no insight
    chart.setTextAntiAlias(true);
    return chart;
  }

  private static void style(JFreeChart chart) {
    XYPlot plot = chart.getXYPlot();
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    ((NumberAxis) plot.getDomainAxis()).setAutoRangeIncludesZero(false);
    chart.setBackgroundPaint(Color.WHITE);
  }

  private static Path save(Path dir, String name, JFreeChart chart) throws IOException {
    Path file = dir.resolve(name);
    ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
    return file;
  }
}
