// Several threads run the watched method at once; each allocates `n` Items in it. The main
// thread's allocations outside work (the threads, the array) are not under the watched method.
public class Threads {
    static final class Item {
        final int value;
        Item(int value) { this.value = value; }
    }

    static long work(int n) {
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += new Item(i).value;
        }
        return sum;
    }

    public static void main(String[] args) throws InterruptedException {
        int threads = Integer.parseInt(args[0]);
        int n = Integer.parseInt(args[1]);
        Thread[] running = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            running[t] = new Thread(() -> work(n));
            running[t].start();
        }
        for (Thread thread : running) {
            thread.join();
        }
    }
}
