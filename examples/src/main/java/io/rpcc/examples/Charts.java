package io.rpcc.examples;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** Writes the scenario runners' PNG charts (with XChart), one per figure. */
public final class Charts {
    private Charts() {
    }

    /**
     * Draws one line per series and writes {@code dir/name.png}. Ideal lines are dashed and
     * without markers.
     *
     * @param series the series a line belongs to, e.g. {@code "chain"} or {@code "ideal rpc"}
     * @return the file written, or {@code null} if {@code dir} is null (charts turned off)
     */
    public static Path line(Path dir, String name, String title, String xTitle, String yTitle, List<Measurement> lines,
                            Function<Measurement, String> series, ToDoubleFunction<Measurement> x,
                            ToDoubleFunction<Measurement> y) {
        return line(dir, name, title, xTitle, yTitle, lines, series, x, y, false);
    }

    /**
     * As {@link #line(Path, String, String, String, String, List, Function, ToDoubleFunction, ToDoubleFunction)},
     * both axes logarithmic if {@code logScales} (for sizes and times over several orders of magnitude).
     */
    public static Path line(Path dir, String name, String title, String xTitle, String yTitle, List<Measurement> lines,
                            Function<Measurement, String> series, ToDoubleFunction<Measurement> x,
                            ToDoubleFunction<Measurement> y, boolean logScales) {
        if (dir == null) {
            return null;
        }
        System.setProperty("java.awt.headless", "true");
        XYChart chart = new XYChartBuilder().width(800).height(500).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setXAxisLogarithmic(logScales);
        chart.getStyler().setYAxisLogarithmic(logScales);
        Map<String, List<Measurement>> bySeries = new LinkedHashMap<>();
        for (Measurement m : lines) {
            bySeries.computeIfAbsent(series.apply(m), k -> new ArrayList<>()).add(m);
        }
        bySeries.forEach((label, ms) -> {
            XYSeries s = chart.addSeries(label, ms.stream().mapToDouble(x).toArray(), ms.stream().mapToDouble(y).toArray());
            if (ms.get(0).isIdeal()) {
                s.setMarker(SeriesMarkers.NONE);
                s.setLineStyle(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {6, 4}, 0));
            }
        });
        try {
            Files.createDirectories(dir);
            Path file = dir.resolve(name + ".png");
            BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the chart " + name + " into " + dir, e);
        }
    }
}
