package com.example.notes

import android.database.sqlite.SQLiteDatabase
import android.webkit.WebView
import java.security.MessageDigest

class NotesRepository(private val db: SQLiteDatabase) {

    fun byId(id: Long) = db.rawQuery("SELECT * FROM notes WHERE id = ?", arrayOf(id.toString()))

    fun search(term: String) = db.rawQuery("SELECT * FROM notes WHERE body LIKE '%$term%'", null)

    fun deleteAll() = db.execSQL("DELETE FROM notes")

    fun purge(folder: String) = db.execSQL("DELETE FROM notes WHERE folder = '" + folder + "'")

    fun fingerprint(pin: String): ByteArray =
        MessageDigest.getInstance("MD5").digest(pin.toByteArray())

    fun strongFingerprint(data: ByteArray): ByteArray =
        MessageDigest.getInstance("SHA-256").digest(data)
}

fun configure(webView: WebView) {
    webView.settings.javaScriptEnabled = true
    webView.settings.allowUniversalAccessFromFileURLs = true
    webView.settings.allowFileAccess = false
}
