"""Names that vulture (the dead-code check of `make lint`) cannot see used: frameworks call them
by registration or by name, templates read them, the database stores them. Run:

    vulture pbem engine vulture_whitelist.py --min-confidence 60

Each line is an attribute of ``_`` so that this file is plain Python (ruff checks it); vulture
counts a name used wherever it appears, so list a name here only when it is used by something
vulture does not read, and say what. Code that nothing uses is deleted, not listed.
"""
# ruff: noqa: B018  (the bare attribute expressions below are this file's whole point)

from __future__ import annotations


class _Used:
    def __getattr__(self, _name: str) -> _Used:
        return self


_ = _Used()

# Flask views, blueprint hooks and app hooks: registered by their decorators (@bp.route,
# @bp.get/post, @bp.before_request, @bp.record_once, @bp.app_context_processor, @app.after_request,
# @app.before_request, Flask-Login's @login_manager.user_loader/unauthorized_handler).
_.account_language
_.audit_log
_.calendar_feed
_.cancel
_.change  # pbem.web.channels: a channel's buttons
_.hide  # pbem.admin.chat: a message's button
_.post_from_seat  # pbem.web.chat: the seat page's and the move page's forms, and the mute
_.post_from_move_page
_.mute
_.challenge_action
_.challenge_page
_.choose_notifications  # pbem.web.notifications
_.confirm_page
_.email_links
_.from_game  # pbem.web.analysis: the analysis board from a game's page
_.from_move
_.from_seat
_.game_action
_.games_list
_.guard
_.healthz
_.invitation
_.keep  # pbem.web.conditional: a seat keeps its conditional moves
_.leaderboard_page
_.load_user
_.mail_settings  # pbem.web.notifications: the account section's and seat page's values
_.mute_seat  # pbem.web.notifications
_.login_code
_.logout
_.mail_list
_.mail_log
_.mail_part
_.mail_show
_.my_challenges
_.my_games
_.new_challenge
_.new_tournament
_.old_link
_.play_the_computer
_.picture
_.profile
_.public_page
_.read_as_account
_.ratings_index
_.rematch
_.record_json
_.record_sgf_download
_.record_txt
_.refuse_replaced_players
_.replace_my_links
_.request_link
_.resign_page
_.rules_index
_.rules_page
_.seat_page
_.security_headers_of
_.sign_in_page
_.sign_out
_.sign_out_everywhere
_.sign_out_page
_.sign_up
_.signed_in
_.to_login
_.tournament_detail
_.tournament_page
_.tournaments_index
_.tournaments_list
_.turn_page
_.two_factor_confirm
_.two_factor_off
_.two_factor_set_up
_.unsubscribe
_.withdraw
_._check_presets  # @bp.record_once: checks the challenge presets when the app starts

# click commands (pbem.cli): registered by @main.command / @group.command.
_.abort_game_command
_.create_game_command
_.db_upgrade
_.demo
_.list_command
_.rebuild_command
_.serve
_.standings_command
_.start_game_command

# Flask-Login's user protocol (AdminUser, SignedInPlayer) and its settings.
_.get_id
_.is_anonymous
_.is_authenticated
_.session_protection

# Read by Jinja templates (templates/), or set on flask.g / request for them and for hooks.
_.confirm  # Action.confirm, the confirm button's words: admin/action.html
_.csrf_valid  # g.csrf_valid, read back with g.get("csrf_valid") (pbem.web.csrf)
_.examples  # positions' examples: admin/new_game.html, email/reply_help.txt
_.formats  # admin/tournament_new.html
_.crosstable_cells  # a template global: tournament_standings.html
_.round_by_round_cells  # a template global: tournament_standings.html
_.help  # engine.base.Option.help: admin/new_game.html
_.overdue  # admin/games.html, admin/game.html
_.action_url  # home.Line.action_url: home/_games.html
_.variants  # catalogue.Card.variants: _game_cards.html
_.by_server  # notify.ShownMove.by_server: email/_since.txt, email/_since.html
_.pbem_reader  # g.pbem_reader: base.html
_.pbem_reader_id  # base.html
_.pbem_chosen_reader  # g.pbem_chosen_reader, read back with g.get (pbem.web.language)
_.on_game_over  # PlayerChannel's news: _channels.html, and by name in pbem.channels.messages
_.on_reminder
_.on_turn
_.repeat  # the repeated password field: admin/account.html
_.seat_kinds  # admin/new_game.html
_.seat_rows  # admin/new_game.html
_.shown_options  # admin/tournament_new.html
_.status_code  # a Flask response's status, set for the client
_.max_age  # a response's Cache-Control max-age, set for the client

# WTForms: inline validators are found by name (validate_<field>).
_.validate_new
_.validate_reason
_.validate_repeat
_.validate_seat
_.validate_winner

# SQLModel table columns written for the record (shown by the dashboard or kept for audits) and
# stored values: vulture sees a write and no read in Python.
_.ADMIN  # MoveSource.ADMIN: stored in moves.source by organisers' moves of old games
_.answered_at
_.closed_at
_.joined_at
_.last_login_at
_.mu_before
_.new_player_id
_.sent_at  # admin/mail_show.html
_.sigma_before
_.updated_at

# SQLAlchemy: a TypeDecorator's protocol (pbem.models.columns) and event listeners (pbem.db).
_.cache_ok
_.impl
_.isolation_level
_.on_begin
_.on_connect
_.process_bind_param
_.process_result_value

# Library callbacks and settings found by name.
_.collect  # prometheus_client collector (pbem.monitoring)
_.factory  # aiosmtpd Controller.factory (pbem.inbound.smtp)
_.get_retry_decision  # Procrastinate's retry strategy hook (pbem.tasks.worker)
_.load_bytecode  # Jinja's BytecodeCache protocol (pbem.templating.CompiledTemplates)
_.dump_bytecode
_.handle_DATA  # aiosmtpd handler hooks
_.handle_RCPT
_.handle_data  # html.parser.HTMLParser hooks (pbem.inbound.html_text)
_.handle_endtag
_.handle_starttag
_.msg  # logging.LogRecord.msg, rewritten by the redacting filter (pbem.logs)
_.nameservers  # dns.resolver.Resolver.nameservers (pbem.doctor)
_.retry  # an Apprise service's own retries, set to none (pbem.channels.urls)
_.STORAGE_SCHEME  # limits' storage registry reads it (pbem.ratelimit)
_.msgid1  # gettext's ngettext/npgettext parameter names (pbem.i18n's translations class)
_.msgid2

# Alembic revision modules (pbem/migrations/versions): read by Alembic's script directory.
_.branch_labels
_.depends_on
_.down_revision
_.downgrade
_.upgrade

# Read by tests/ and bench/, which vulture is not run on.
_.pure  # engine.native.pure: the same games without their native cores, so that
# tests/engine/test_native.py and bench/native.py compare the two move for move and time them;
# it switches engine.native's own state, so it belongs beside the switch it turns.
_.hidden_by  # ChatMessage: shown on the dashboard (admin/game.html)
