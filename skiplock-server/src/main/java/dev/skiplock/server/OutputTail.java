package dev.skiplock.server;

import dev.skiplock.JobContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;

/**
 * Follows one output file of a command run and turns each complete line into a {@code log} event,
 * skipping the lines an earlier worker already recorded. Ends once the process has exited and the
 * file is read to its end; the last line is sent even without a newline.
 */
final class OutputTail implements Runnable {
    private static final long POLL_MILLIS = 20;
    /**
     * A line longer than this is cut into pieces of this size, so output without newlines (a binary
     * dump, a progress bar) costs bounded memory and each log event stays small.
     */
    static final int MAX_LINE_BYTES = 64 * 1024;
    /** Bytes asked of the file per read (a regular file gives that many until its end). */
    static final int READ_BYTES = 8192;

    private final Path file;
    private final String stream;
    private final JobContext<?> context;
    private final BooleanSupplier exited;
    private long toSkip;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    OutputTail(Path file, String stream, long alreadyLogged, JobContext<?> context, BooleanSupplier exited) {
        this.file = file;
        this.stream = stream;
        this.toSkip = alreadyLogged;
        this.context = context;
        this.exited = exited;
    }

    @Override
    public void run() {
        try (InputStream input = open()) {
            if (input == null) {
                return;
            }
            byte[] buffer = new byte[READ_BYTES];
            while (true) {
                // Read the exit state before the file: data written before the exit is then surely seen.
                boolean done = exited.getAsBoolean();
                int read = input.read(buffer);
                if (read > 0) {
                    split(buffer, read);
                } else if (done) {
                    break;
                } else {
                    Thread.sleep(POLL_MILLIS);
                }
            }
            if (line.size() > 0) {
                emit();
            }
        } catch (IOException e) {
            context.log(CommandRunner.NOTES, "skiplock: cannot read " + stream + ": " + e.getMessage());
        } catch (InterruptedException e) {
            // the execution was handed over to another worker: it reads on from what was recorded
        }
    }

    /** The file appears when the wrapper starts the command; wait for it while the process lives. */
    private InputStream open() throws IOException, InterruptedException {
        while (true) {
            boolean done = exited.getAsBoolean();
            try {
                return Files.newInputStream(file);
            } catch (NoSuchFileException e) {
                if (done) {
                    return null;
                }
                Thread.sleep(POLL_MILLIS);
            }
        }
    }

    /**
     * Cuts the bytes into lines, and a long line into pieces: a piece ends before the first byte
     * that starts a character once it holds {@link #MAX_LINE_BYTES}, so no character is cut. The
     * cut depends only on the bytes, never on where a read ended: a worker tailing the file as it
     * grows and an adopter reading it again from the start cut it into the same pieces, and the
     * adopter's count of pieces to skip stays right.
     */
    private void split(byte[] buffer, int length) {
        int start = 0;
        for (int i = 0; i < length; i++) {
            if (buffer[i] == '\n') {
                line.write(buffer, start, i - start);
                emit();
                start = i + 1;
            } else if (endsPiece(line.size() + (i - start), buffer[i])) {
                line.write(buffer, start, i - start);
                emit();
                start = i;
            }
        }
        line.write(buffer, start, length - start);
    }

    /**
     * Whether a piece holding {@code size} bytes ends before {@code next}: once it is full, unless
     * {@code next} continues a UTF-8 character (10xxxxxx). A character has at most three such
     * bytes, so a longer run (not UTF-8: binary output) is cut anyway and a piece stays bounded.
     */
    private static boolean endsPiece(int size, byte next) {
        return size >= MAX_LINE_BYTES && ((next & 0xC0) != 0x80 || size >= MAX_LINE_BYTES + 3);
    }

    /** Decodes the line; invalid UTF-8 becomes U+FFFD (and the worker replaces NUL the same way). */
    private void emit() {
        String text = line.toString(StandardCharsets.UTF_8);
        line.reset();
        if (toSkip > 0) {
            toSkip--;
            return;
        }
        context.log(stream, text);
    }
}
