package io.weft.examples.chat;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.WebDriverWait;

/** The chat page (index.html) in one browser, as a user works it: every wait is on a condition, bounded. */
final class ChatPage {
    static final Duration WAIT = Duration.ofSeconds(20);

    private final WebDriver driver;

    ChatPage(WebDriver driver) {
        this.driver = driver;
    }

    WebDriver driver() {
        return driver;
    }

    ChatPage open(String url) {
        driver.get(url);
        return this;
    }

    /** Types a name and a room, presses Join, and waits for the chat view. */
    ChatPage join(String name, String room) {
        pressJoin(name, room);
        return waitForChatView(name);
    }

    /** Types a name and a room and presses Join, without waiting for anything. */
    ChatPage pressJoin(String name, String room) {
        WebElement nameInput = driver.findElement(By.id("name"));
        nameInput.clear();
        nameInput.sendKeys(name);
        WebElement roomInput = driver.findElement(By.id("room"));
        roomInput.clear();
        roomInput.sendKeys(room);
        driver.findElement(By.id("join")).click();
        return this;
    }

    ChatPage waitForChatView(String name) {
        waitFor("the chat view of " + name, d -> d.findElement(By.id("chat-view")).isDisplayed());
        return this;
    }

    /**
     * Waits for the page to show that the server refused it ({@code data-state="refused"}), and returns what the
     * status badge says.
     */
    String refusal() {
        waitFor("a refusal", d -> "refused".equals(status().getAttribute("data-state")));
        return status().getText();
    }

    /** What the login form's error line says, once it shows one. */
    String loginError() {
        waitFor("the login form's error", d -> d.findElement(By.id("login-error")).isDisplayed());
        return driver.findElement(By.id("login-error")).getText();
    }

    ChatPage say(String text) {
        driver.findElement(By.id("text")).sendKeys(text);
        driver.findElement(By.id("send")).click();
        return this;
    }

    /** Waits for a chat line from {@code user} saying {@code text}. */
    ChatPage waitForChat(String user, String text) {
        waitFor("'" + user + ": " + text + "'", d -> chatLines().contains(user + ": " + text));
        return this;
    }

    ChatPage waitForNotice(String notice) {
        waitFor("the notice '" + notice + "'", d -> notices().contains(notice));
        return this;
    }

    ChatPage waitForMembers(String... names) {
        List<String> expected = List.of(names);
        waitFor("members " + expected, d -> members().equals(expected));
        return this;
    }

    /** The transport in use once connected: {@code websocket} or {@code long-polling}. */
    String connectedTransport() {
        waitFor("a connection", d -> "connected".equals(status().getAttribute("data-state")));
        return status().getAttribute("data-transport");
    }

    List<String> chatLines() {
        return driver.findElements(By.cssSelector("#messages li.chat")).stream()
                .map(li -> li.findElement(By.className("user")).getText() + ": "
                        + li.findElement(By.className("text")).getText())
                .toList();
    }

    List<String> notices() {
        return texts("#messages li.notice");
    }

    List<String> members() {
        return texts("#members li");
    }

    byte[] screenshot() {
        return ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES);
    }

    private WebElement status() {
        return driver.findElement(By.id("status"));
    }

    private List<String> texts(String css) {
        return driver.findElements(By.cssSelector(css)).stream().map(WebElement::getText).toList();
    }

    private void waitFor(String what, Function<WebDriver, Boolean> condition) {
        try {
            new WebDriverWait(driver, WAIT).until(condition::apply);
        } catch (RuntimeException x) {
            throw new AssertionError("waited " + WAIT.toSeconds() + " s for " + what + "; the page shows: "
                    + describe(driver), x);
        }
    }

    /** What a page shows and logged, for failure messages. */
    static String describe(WebDriver driver) {
        String text;
        try {
            text = driver.findElement(By.tagName("body")).getText().replace('\n', '|');
        } catch (RuntimeException x) {
            text = "(unreadable: " + x + ")";
        }
        String console;
        try {
            console = driver.manage().logs().get(LogType.BROWSER).getAll().stream()
                    .map(entry -> entry.getLevel() + " " + entry.getMessage())
                    .collect(Collectors.joining(" || "));
        } catch (RuntimeException x) {
            console = "(no console log: " + x.getMessage() + ")";
        }
        return "[" + text + "] console: [" + console + "]";
    }
}
