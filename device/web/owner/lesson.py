"""« Apprendre mes dés »: the owner photographs each face of the table's own dice, and the
die-face reader learns them (``device.teach``)."""

from __future__ import annotations

from flask import Blueprint, Response

from device.web.owner.common import (
    Empty,
    LessonBody,
    Refused,
    answer,
    current_owner,
    current_watcher,
    parse_body,
    refusal,
)


def register(bp: Blueprint) -> None:
    """Start a lesson, take its steps (photo, undo, finish, cancel), show its photos."""

    @bp.post("/api/owner/lesson")
    def lesson_start() -> Response:
        from device.teach import Lesson  # the fit's modules: loaded when first used

        body = parse_body(LessonBody)
        owner, watcher = current_owner(), current_watcher()
        if watcher is None:
            raise Refused(
                "no camera: there are no dice to learn", "pas de caméra : aucun dé à apprendre"
            )
        if owner.lesson is not None:
            owner.lesson.end()
        owner.lesson = Lesson(watcher, body.rules, owner.enrolment_path)
        watcher.lesson = owner.lesson
        return answer(owner.lesson.state(), 201)

    @bp.post("/api/owner/lesson/<action>")
    def lesson_step(action: str) -> Response:
        from device.teach import TeachRefused

        parse_body(Empty)
        owner = current_owner()
        lesson = owner.lesson
        if lesson is None:
            raise Refused("no lesson: start one", "aucun apprentissage en cours : commencez-en un")
        try:
            if action == "photo":
                if current_watcher().lesson is not lesson:
                    raise TeachRefused(
                        "the lesson was left alone too long: start again",
                        "l'apprentissage a été laissé trop longtemps : recommencez",
                    )
                return answer(lesson.take())
            if action == "undo":
                return answer(lesson.drop_last())
            if action == "finish":
                return answer(lesson.finish())
            if action == "cancel":
                lesson.end()
                owner.lesson = None
                return answer({"cancelled": True})
        except TeachRefused as exc:
            raise Refused(str(exc), exc.french) from None
        raise Refused(f"no such step: {action}", f"étape inconnue : {action}", 404)

    @bp.get("/api/owner/lesson/<int:index>.jpg")
    def lesson_photo(index: int) -> Response:
        lesson = current_owner().lesson
        if lesson is None or not 0 <= index < len(lesson.shots):
            return refusal(Refused("no such photo", "pas de telle photo", 404))
        response = Response(lesson.shots[index].photo, mimetype="image/jpeg")
        response.headers["Cache-Control"] = "no-store"
        return response
