// Clean Kotlin in the style of an HTTP client's connection code and an Android app's
// repository: task queues named with string templates, constant-only SQL with bound
// arguments. Written for aiagent; nothing here is a vulnerability.
package example.net

import android.database.sqlite.SQLiteDatabase
import java.util.concurrent.TimeUnit

class TaskQueue(private val name: String) {
    fun execute(taskName: String, delayNanos: Long = 0L, cancelable: Boolean = true, block: () -> Unit) {
        println("[$name] schedule $taskName in $delayNanos ns (cancelable=$cancelable)")
        block()
    }
}

class Connection(private val connectionName: String, private val writerQueue: TaskQueue) {
    private var pings = 0

    fun writeWindowUpdate(streamId: Int, bytes: Long) {
        writerQueue.execute("$connectionName[$streamId] windowUpdate") {
            println("window update $bytes on $streamId")
        }
    }

    fun ping() {
        pings++
        writerQueue.execute("$connectionName ping", TimeUnit.SECONDS.toNanos(1)) {
            println("ping $pings")
        }
    }

    fun resolve(hostname: String, queue: TaskQueue) {
        queue.execute("$hostname dns", cancelable = false) {
            println("resolving $hostname")
        }
    }
}

class NoteRepository(private val db: SQLiteDatabase) {
    fun purgeExpired() {
        db.execSQL("DELETE FROM $TABLE WHERE expires_at < strftime('%s','now')")
    }

    fun byAuthor(author: String): Int {
        val cursor = db.rawQuery("SELECT count(*) FROM $TABLE WHERE author = ?", arrayOf(author))
        cursor.use { return if (it.moveToFirst()) it.getInt(0) else 0 }
    }

    fun rename(id: Long, title: String) {
        db.execSQL("UPDATE $TABLE SET title = ? WHERE id = ?", arrayOf(title, id))
    }

    companion object {
        const val TABLE = "notes"
    }
}
