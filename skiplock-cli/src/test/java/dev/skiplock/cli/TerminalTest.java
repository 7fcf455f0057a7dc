package dev.skiplock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whether stderr is a terminal, read off its file descriptor's link: the live status line and the
 * bench's progress are drawn there. Before, only stdin and stdout were looked at, and
 * {@code submit --wait 2>err.log} from a terminal filled the file with redraws.
 */
class TerminalTest {
    @Test
    void aDescriptorLinkedToATerminalDeviceIsATerminalAndAFileOrPipeIsNot(@TempDir Path dir) throws Exception {
        assertThat(Terminal.isTerminalDevice(Files.createSymbolicLink(dir.resolve("pts"), Path.of("/dev/pts/3"))))
                .contains(true);
        assertThat(Terminal.isTerminalDevice(Files.createSymbolicLink(dir.resolve("tty"), Path.of("/dev/tty1"))))
                .contains(true);
        assertThat(Terminal.isTerminalDevice(Files.createSymbolicLink(dir.resolve("file"), dir.resolve("err.log"))))
                .contains(false);
        assertThat(Terminal.isTerminalDevice(Files.createSymbolicLink(dir.resolve("pipe"), Path.of("pipe:[4242]"))))
                .contains(false);
        assertThat(Terminal.isTerminalDevice(dir.resolve("missing"))).isEmpty();
    }

    /**
     * A job's text shown on a terminal (logs, the status line's progress) carries no control
     * character: an escape (ESC, or C1's CSI) could clear the screen or set the clipboard (OSC 52).
     */
    @Test
    void controlCharactersOfAJobsTextAreShownNotSent() {
        assertThat(Terminal.shown("ok \u001b[2J\u001b]52;c;cm0gLXJm\u0007 \u009b31m\u007f done"))
                .isEqualTo("ok \\x1b[2J\\x1b]52;c;cm0gLXJm\\x07 \\x9b31m\\x7f done");
        assertThat(Terminal.shown("tab\tand ünïcödé ✓")).isEqualTo("tab\tand ünïcödé ✓");
    }
}
