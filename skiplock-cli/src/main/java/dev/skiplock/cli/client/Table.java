package dev.skiplock.cli.client;

import java.util.ArrayList;
import java.util.List;

/** A text table: columns as wide as their widest cell, two spaces apart, the last one not padded. */
final class Table {
    private final List<List<String>> rows = new ArrayList<>();

    Table(String... headers) {
        rows.add(List.of(headers));
    }

    Table row(String... cells) {
        rows.add(List.of(cells));
        return this;
    }

    List<String> lines() {
        int columns = rows.getFirst().size();
        int[] widths = new int[columns];
        for (List<String> row : rows) {
            for (int column = 0; column < columns; column++) {
                widths[column] = Math.max(widths[column], row.get(column).length());
            }
        }
        List<String> lines = new ArrayList<>(rows.size());
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder();
            for (int column = 0; column < columns; column++) {
                String cell = row.get(column);
                line.append(cell);
                if (column < columns - 1) {
                    line.append(" ".repeat(widths[column] - cell.length() + 2));
                }
            }
            lines.add(line.toString());
        }
        return lines;
    }
}
